import IssuerCore
import OfflineNotes
import OpenAPIRuntime
import Prometheus
import Synchronization
import WalletAPI

/// Escrow settlement routes. Without a `EscrowMonitor` (the server runs without
/// --escrow-rpc) every one answers 404 `escrow_not_configured` — to an authenticated caller:
/// the bearer token is checked first, so an anonymous request is 401 like on every route the
/// document secures (schemathesis found anonymous requests answered 404).
extension IssuerAPI {
    static let escrowNotConfigured = HTTPProblem(
        .notFound, code: "escrow_not_configured",
        detail:
            "This server does not settle through an escrow: it runs without --escrow-rpc. Deposit and withdraw through the operator's other channels, or ask the operator to enable escrow settlement."
    )

    func escrowMonitor() throws -> any EscrowMonitor {
        guard let escrow else { throw Self.escrowNotConfigured }
        return escrow
    }

    public func getDepositInstructions(
        _ input: Operations.GetDepositInstructions.Input
    ) async throws -> Operations.GetDepositInstructions.Output {
        let claims = try caller()
        let monitor = try escrowMonitor()
        let ref = try await issuer.depositReference(account: claims.sub)
        let info = monitor.info
        return .ok(
            .init(
                body: .json(
                    .init(
                        chainId: String(info.chainID), escrow: info.escrow, token: info.token, accountRef: EVMHex.hex(ref),
                        decimals: info.decimals, confirmations: info.confirmations, currency: issuer.config.currency.code))))
    }

    public func requestWithdrawal(_ input: Operations.RequestWithdrawal.Input) async throws -> Operations.RequestWithdrawal.Output
    {
        _ = try caller()
        let monitor = try escrowMonitor()
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let claims = try await callerCountingOneWrite()
        let to: [UInt8]
        do { to = try monitor.parseAddress(body.to) } catch {
            let reason =
                (error as? IssuerError).flatMap { if case .invalidField(_, let r) = $0 { r } else { nil } }
                ?? String(describing: error)
            throw HTTPProblem(
                .badRequest, code: "invalid_field",
                detail: "'to' is not a usable address: \(reason). Copy the address from your wallet (0x and 40 hex digits).",
                field: "to")
        }
        let withdrawal = try await issuer.requestWithdrawal(
            account: claims.sub, amount: try amount(body.amount), to: to, idempotencyKey: input.headers.idempotencyKey)
        // The payout sender looks now instead of at its next poll; a replay wakes it harmlessly.
        monitor.wake()
        return .accepted(.init(body: .json(Self.withdrawal(withdrawal, monitor))))
    }

    public func listWithdrawals(_ input: Operations.ListWithdrawals.Input) async throws -> Operations.ListWithdrawals.Output {
        let claims = try caller()
        let monitor = try escrowMonitor()
        let limit = try query(input.query.limit, "limit", in: QueryRange.historyLimit) ?? 50
        let list = try await issuer.withdrawals(account: claims.sub, limit: limit)
        return .ok(.init(body: .json(.init(withdrawals: list.map { Self.withdrawal($0, monitor) }))))
    }

    public func getWithdrawal(_ input: Operations.GetWithdrawal.Input) async throws -> Operations.GetWithdrawal.Output {
        let claims = try caller()
        let monitor = try escrowMonitor()
        guard let id = EVMHex.bytes(input.path.withdrawalId, count: 32) else {
            throw HTTPProblem(
                .badRequest, code: "invalid_parameter",
                detail: "A withdrawal id is 0x followed by 64 hex digits, as the withdrawal request answered.",
                field: "withdrawalId")
        }
        // Another account's withdrawal is answered exactly like a missing one.
        guard let withdrawal = try await issuer.withdrawal(id: id, account: claims.sub) else {
            throw IssuerError.withdrawalNotFound
        }
        return .ok(.init(body: .json(Self.withdrawal(withdrawal, monitor))))
    }

    public func getReconciliation(_ input: Operations.GetReconciliation.Input) async throws -> Operations.GetReconciliation.Output
    {
        _ = try caller()
        let monitor = try escrowMonitor()
        _ = try admin()
        let r = try await Self.reconcile(monitor)
        metrics.record(r)
        return .ok(
            .init(
                body: .json(
                    .init(
                        block: Int64(clamping: r.block), escrowBalance: r.escrowBalance, accounts: r.accounts, debts: r.debts,
                        outstandingNotes: r.outstandingNotes, pendingWithdrawals: r.pendingWithdrawals, unclaimed: r.unclaimed,
                        uncreditedDeposits: r.uncreditedDeposits, paidNotSettled: r.paidNotSettled, expected: r.expected,
                        difference: r.difference,
                        ok: r.ok, creditedThrough: r.creditedThrough.map { Int64(clamping: $0) },
                        currency: issuer.config.currency.code))))
    }

    public func assignUnclaimedDeposit(
        _ input: Operations.AssignUnclaimedDeposit.Input
    ) async throws -> Operations.AssignUnclaimedDeposit.Output {
        _ = try caller()
        _ = try escrowMonitor()
        let claims = try admin()
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        guard body.logIndex >= 0 else {
            throw HTTPProblem(
                .badRequest, code: "invalid_field", detail: "'logIndex' is the Deposit log's index in its block, 0 or more.",
                field: "logIndex")
        }
        let d = try await issuer.assignUnclaimedDeposit(
            txHash: try Self.txHash(body.txHash), logIndex: UInt64(body.logIndex), to: body.accountId, reason: body.reason,
            by: claims.sub)
        return .ok(
            .init(
                body: .json(
                    .init(
                        txHash: EVMHex.hex(d.txHash), logIndex: Int64(d.logIndex),
                        blockNumber: Int64(clamping: d.blockNumber),
                        amount: Int64(clamping: d.amount), accountId: d.account, reason: d.reason, assignedBy: d.assignedBy,
                        assignedAt: d.assignedAt,
                        currency: issuer.config.currency.code))))
    }

    public func bookEscrowSurplus(_ input: Operations.BookEscrowSurplus.Input) async throws -> Operations.BookEscrowSurplus.Output
    {
        _ = try caller()
        let monitor = try escrowMonitor()
        let claims = try admin()
        guard case .json(let body) = input.body else {
            throw HTTPProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send JSON.")
        }
        let txHash = try Self.txHash(body.txHash)
        let amount = try amount(body.amount)
        // Read before reconciling: surplus booked after this point is taken off the difference
        // (see Issuer.bookEscrowSurplus for why the difference may be booked against at all).
        let bookedBefore = try await issuer.escrowSurplusBooked()
        let r = try await Self.reconcile(monitor)
        metrics.record(r)
        let s = try await issuer.bookEscrowSurplus(
            txHash: txHash, amount: amount, reason: body.reason, by: claims.sub, difference: r.difference,
            bookedBefore: bookedBefore)
        return .ok(
            .init(
                body: .json(
                    .init(
                        txHash: EVMHex.hex(s.txHash), amount: Int64(clamping: s.amount), reason: s.reason,
                        bookedBy: s.bookedBy, bookedAt: s.bookedAt,
                        replayed: s.replayed, currency: issuer.config.currency.code))))
    }

    /// A transaction hash from a request body: 0x and 64 hex digits.
    static func txHash(_ text: String) throws -> [UInt8] {
        guard let hash = EVMHex.bytes(text, count: 32) else {
            throw HTTPProblem(
                .badRequest, code: "invalid_field",
                detail: "'txHash' is 0x followed by 64 hex digits, as a block explorer shows it.", field: "txHash")
        }
        return hash
    }

    /// Reconciles now; a failure to read the EVM node is 503 `escrow_unavailable`.
    static func reconcile(_ monitor: any EscrowMonitor) async throws -> Reconciliation {
        do { return try await monitor.reconcile() } catch let error as IssuerError { throw error } catch {
            throw HTTPProblem(
                .serviceUnavailable, code: "escrow_unavailable",
                detail: "Reading the EVM node failed: \(error). Check the node at --escrow-rpc and retry.")
        }
    }

    static func withdrawal(_ w: Withdrawal, _ monitor: any EscrowMonitor) -> Components.Schemas.EscrowWithdrawal {
        let status: Components.Schemas.EscrowWithdrawal.StatusPayload =
            switch w.status {
            case .pending: .pending
            case .sent: .sent
            case .paid: .paid
            case .refused: .refused
            }
        return .init(
            id: EVMHex.hex(w.id), amount: Int64(clamping: w.amount), to: monitor.format(address: w.to), status: status,
            txHash: w.txHash.map(EVMHex.hex), reason: w.reason, createdAt: w.createdAt, updatedAt: w.updatedAt)
    }

    /// Brings the escrow metrics up to date before /metrics renders: the last reconciliation's
    /// gauges, and counters caught up with the database's totals (shared by every process, so
    /// each server exposes the same totals; EscrowSettlement does not see these metrics).
    func updateEscrowMetrics() async throws {
        guard let escrow else { return }
        if let r = escrow.lastReconciliation { metrics.record(r) }
        let totals = try await issuer.escrowTotals()
        escrowCounters.catchUp(
            "escrow_deposits_credited", help: "Escrow deposits credited (to an account or system:unclaimed)", [],
            to: totals.depositsCredited, in: metrics.registry)
        escrowCounters.catchUp(
            "escrow_payouts", help: "Withdrawals settled on the blockchain, by outcome", [("status", "paid")], to: totals.paid,
            in: metrics.registry)
        escrowCounters.catchUp(
            "escrow_payouts", help: "Withdrawals settled on the blockchain, by outcome", [("status", "refused")],
            to: totals.refused,
            in: metrics.registry)
    }
}

extension IssuerMetrics {
    /// `offline_wallet_escrow_reconciliation_ok` (1 or 0) and `…_difference` (minor units).
    func record(_ r: Reconciliation) {
        registry.makeGauge(
            descriptor: .init(
                namespace: "offline_wallet", metricName: "escrow_reconciliation_ok", unitName: "",
                helpText: "1 when the escrow's balance equals what the books say it must hold at the last reconciliation")
        ).set(to: r.ok ? 1 : 0)
        registry.makeGauge(
            descriptor: .init(
                namespace: "offline_wallet", metricName: "escrow_reconciliation_difference", unitName: "minor_units",
                helpText: "Escrow balance minus the expected balance at the last reconciliation")
        ).set(to: Double(r.difference))
    }
}

/// Counters that mirror monotonic database totals: each render adds what the total grew by
/// since this process last looked.
final class EscrowCounters: Sendable {
    private let seen = Mutex<[String: Int64]>([:])

    func catchUp(
        _ name: String, help: String, _ labels: [(String, String)], to total: Int64, in registry: PrometheusCollectorRegistry
    ) {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
        let delta = seen.withLock { seen -> Int64 in
            let grown = total - seen[key, default: 0]
            if grown > 0 { seen[key] = total }
            return grown
        }
        let counter = registry.makeCounter(
            descriptor: .init(namespace: "offline_wallet", metricName: name, unitName: "total", helpText: help), labels: labels)
        // Touched even when nothing grew, so the series exists from the first scrape.
        counter.increment(by: max(0, delta))
    }
}
