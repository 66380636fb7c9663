import Ethereum
import EthereumRPC
import IssuerCore
import Logging
import OfflineNotes
import SQLStore
import Synchronization

/// Settlement on an EVM network (docs/server.md, "Escrow settlement"): the server's EVM side.
///
/// Started by `wallet-server serve --escrow-rpc …`, it runs beside the HTTP API: every `poll`
/// (or at once after `wake()`, which the API calls on a withdrawal request) it credits the
/// escrow's confirmed deposits (`DepositScanner`) and moves open withdrawals towards paid or
/// refused (`PayoutSender`); now and then it reconciles the escrow against the books
/// (`Reconciler`) for the metrics. All state is in the database, so a restart, or a second
/// server on the same PostgreSQL database, picks up where it left off without paying or
/// crediting anything twice. It is the `EscrowMonitor` the HTTP layer sees.
public final class EscrowSettlement: EscrowMonitor {
    public let info: EscrowInfo
    /// The operator key's address (it signs payouts).
    public let operatorAddress: Address
    let scanner: DepositScanner
    let sender: PayoutSender
    let reconciler: Reconciler
    let poll: Duration
    let logger: Logger
    let wakeup = Wakeup()
    /// Passes never overlap (run's loop against a test's explicit `pass()`).
    let passes = AsyncLock()
    private let last = Mutex<Reconciliation?>(nil)

    /// Connects to the node and checks that it can settle with this escrow, or throws a
    /// `EscrowSettlementError.configuration` that says what is wrong and what to do:
    /// the chain id answers; the escrow answers `token()`; the token's `decimals()` equal the
    /// currency's minor-unit digits (one token unit is one minor unit, nothing is scaled);
    /// the escrow's `operator()` is the operator key's address.
    ///
    /// - Parameters:
    ///   - confirmations: blocks counted as confirming a deposit (and a payout's receipt),
    ///     the block itself included: at least 1.
    ///   - startBlock: where the first deposit scan begins (the escrow's deployment block);
    ///     ignored once the database has a cursor.
    ///   - poll: the pause between passes.
    public static func connect(
        rpc: JSONRPCClient, escrow: Address, operatorKey: PrivateKey, confirmations: Int, startBlock: UInt64 = 0,
        poll: Duration = .seconds(2), issuer: Issuer, logger: Logger
    ) async throws -> EscrowSettlement {
        guard confirmations >= 1 else {
            throw EscrowSettlementError.configuration(
                "--escrow-confirmations must be at least 1 (a mined block is its own first confirmation); got \(confirmations)")
        }
        func ask<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
            do { return try await body() } catch {
                throw EscrowSettlementError.configuration(
                    "cannot read \(what): \(error). Check --escrow-rpc and --escrow-address.")
            }
        }
        let chainID = try await ask("the chain id") { try await rpc.chainID() }
        let bare = Escrow(rpc: rpc, address: escrow, token: escrow)
        let token = try await ask("the escrow's token() at \(escrow)") {
            try EscrowContract.address(try await bare.call(EscrowContract.token, "token()"), of: "token()")
        }
        let decimals = try await ask("the token's decimals() at \(token)") {
            try EscrowContract.uint64(
                try await bare.call(EscrowContract.Token.decimals, to: token, "decimals()"), of: "decimals()")
        }
        let currency = issuer.config.currency
        guard decimals == UInt64(currency.minorUnitDigits) else {
            throw EscrowSettlementError.configuration(
                "the token \(token) has \(decimals) decimals but the server's currency \(currency.code) has \(currency.minorUnitDigits) minor-unit digits: one token unit must be one minor unit. Use an escrow whose token has \(currency.minorUnitDigits) decimals, or the --currency the token was made for."
            )
        }
        let registered = try await ask("the escrow's operator()") {
            try EscrowContract.address(try await bare.call(EscrowContract.operator, "operator()"), of: "operator()")
        }
        guard registered == operatorKey.address else {
            throw EscrowSettlementError.configuration(
                "the escrow's operator is \(registered) but --escrow-operator-key holds the key of \(operatorKey.address): the escrow would refuse every payout. Give the key file of \(registered), or have the escrow's owner make \(operatorKey.address) the operator (`wallet-escrow set-operator \(operatorKey.address)`)."
            )
        }
        do {
            try await issuer.bindEscrow(chainID: chainID, escrow: escrow.bytes, operatorAddress: operatorKey.address.bytes)
        } catch {
            throw EscrowSettlementError.configuration("\(error)")
        }
        let info = EscrowInfo(
            chainID: chainID, escrow: escrow.checksummed, token: token.checksummed, decimals: Int(decimals),
            confirmations: confirmations)
        let settlement = EscrowSettlement(
            info: info, escrow: Escrow(rpc: rpc, address: escrow, token: token), operatorKey: operatorKey, startBlock: startBlock,
            poll: poll, issuer: issuer, logger: logger)
        logger.info(
            "escrow settlement: chain ID \(chainID), escrow \(escrow), token \(token) (\(decimals) decimals), operator \(operatorKey.address), \(confirmations) confirmations"
        )
        return settlement
    }

    init(
        info: EscrowInfo, escrow: Escrow, operatorKey: PrivateKey, startBlock: UInt64, poll: Duration, issuer: Issuer,
        logger: Logger
    ) {
        self.info = info
        self.operatorAddress = operatorKey.address
        self.poll = poll
        self.logger = logger
        let confirmations = UInt64(info.confirmations)
        scanner = DepositScanner(
            escrow: escrow, issuer: issuer, confirmations: confirmations, startBlock: startBlock, logger: logger)
        sender = PayoutSender(
            escrow: escrow, issuer: issuer, key: operatorKey, chainID: info.chainID, confirmations: confirmations,
            currency: issuer.config.currency, logger: logger)
        reconciler = Reconciler(escrow: escrow, issuer: issuer, startBlock: startBlock)
    }

    // MARK: The service

    /// Runs passes until the task is cancelled: a pass, then a pause of `poll` or until
    /// `wake()`. Failures are logged and retried in the next pass, never thrown: the server
    /// keeps serving (offline notes, accounts) while the node is away. Reconciles at start and
    /// then about every `reconcileEvery` for the metrics.
    public func run(reconcileEvery: Duration = .seconds(60)) async {
        let clock = ContinuousClock()
        var lastReconciled: ContinuousClock.Instant?
        while !Task.isCancelled {
            await pass()
            if lastReconciled.map({ clock.now - $0 >= reconcileEvery }) ?? true, !Task.isCancelled {
                lastReconciled = clock.now
                do {
                    let r = try await reconcile()
                    if r.ok {
                        logger.debug("reconciliation at block \(r.block): ok, escrow holds \(r.escrowBalance)")
                    } else {
                        logger.error(
                            "reconciliation at block \(r.block) FAILED: the escrow holds \(r.escrowBalance), the books expect \(r.expected) (difference \(r.difference)); see GET /v1/admin/escrow/reconciliation and docs/server.md"
                        )
                    }
                } catch {
                    logger.warning("reconciliation failed: \(error)")
                }
            }
            await wakeup.wait(upTo: poll)
        }
    }

    /// One pass: credits confirmed deposits, then moves every open withdrawal on. Errors are
    /// logged (each part retries in the next pass). A pass asked for while one runs waits
    /// for it and runs after it.
    public func pass() async {
        // A pass cut short by shutdown is not a failure worth an error line: everything it did
        // is committed, and the next start carries on from the database.
        do { _ = try await scanDeposits() } catch  where !Task.isCancelled {
            logger.error("deposit scan failed: \(error); retrying in the next pass")
        } catch {}
        do { _ = try await settleWithdrawals() } catch  where !Task.isCancelled {
            logger.error("payouts failed: \(error); retrying in the next pass")
        } catch {}
    }

    /// Credits the deposits that have their confirmations; returns each found with what the
    /// books did with it (`.duplicate` if credited before).
    @discardableResult
    public func scanDeposits() async throws -> [(event: EscrowContract.Event, outcome: DepositOutcome)] {
        try await exclusive { try await scanner.scan().map { (event: $0.0, outcome: $0.1) } }
    }

    /// Moves every open withdrawal one step (sign and send, or follow a sent payout); returns
    /// each with the status it has now. A failure with one is logged and leaves it as it is.
    @discardableResult
    public func settleWithdrawals() async throws -> [Withdrawal] {
        try await exclusive {
            var result: [Withdrawal] = []
            for (withdrawal, step) in try await sender.pass() {
                var w = withdrawal
                switch step {
                case .settled(let status): w.status = status
                case .sent, .reset: w.status = .sent
                case .waiting, .resubmitted: break
                }
                result.append(w)
            }
            return result
        }
    }

    /// Runs `body` alone among the passes of this instance.
    func exclusive<T>(_ body: () async throws -> T) async throws -> T {
        try await passes.withLock(body)
    }

    // MARK: EscrowMonitor

    public func reconcile() async throws -> Reconciliation {
        let r = try await reconciler.reconcile()
        last.withLock { $0 = r }
        return r
    }

    public var lastReconciliation: Reconciliation? { last.withLock { $0 } }

    public func wake() { wakeup.signal() }

    /// EIP-55: all lower, all upper, or mixed case with the right checksum; not the zero address.
    public func parseAddress(_ text: String) throws -> [UInt8] {
        let address: Address
        do { address = try Address(hex: text) } catch {
            throw IssuerError.invalidField(field: "to", reason: error.description)
        }
        // Tokens paid to the escrow never leave it (the books would call them paid while the
        // escrow still held them); tokens paid to the token contract are lost for good.
        guard address.checksummed != info.escrow, address.checksummed != info.token else {
            throw IssuerError.invalidField(
                field: "to",
                reason: "\(address) is the escrow or its token contract, not a wallet; give the address of a wallet you control")
        }
        return address.bytes
    }

    public func format(address: [UInt8]) -> String {
        (try? Address(bytes: address).checksummed) ?? EVMHex.hex(address)
    }
}

/// The pause between passes: ends after the poll interval, at `signal()`, or when the task is
/// cancelled. A signal while nobody waits is kept for the next wait, so a wake-up that comes
/// during a pass is never lost (the next pause ends at once).
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    func wait(upTo timeout: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self?.signal() }
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending {
                        s.pending = false
                        return true
                    }
                    s.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
