import EVMTesting
import EscrowSettlement
import Ethereum
import EthereumRPC
import Foundation
import IssuerCore
import IssuerTesting
import Logging
import OfflineNotes
import SQLStore
import TestSupport
import Testing

/// Escrow settlement against a real local EVM (scripts/EVM/node.py, a py-EVM EVM) and real
/// databases (SQLite; PostgreSQL when OW_TEST_POSTGRES_URL is set). Passes are driven by hand
/// (`scanDeposits`, `settleWithdrawals`), so nothing waits on time. Each test deploys its own
/// escrow and holds the EVM alone (`TestEscrow.run`).
@Suite(
    .enabled(
        if: TestEscrow.enabled, "needs the local EVM: scripts/with-evm swift test --skip-build --filter EscrowSettlementTests")
)
struct EscrowSettlementTests {
    static let confirmations = 3

    /// An issuer on a fresh database and a settlement for it on a fresh EVM.
    struct Harness {
        let evm: TestEscrow
        let issuer: Issuer
        let openAnother: @Sendable () throws -> any SQLDatabase
        let settlement: EscrowSettlement

        init(_ backend: Backend, _ evm: TestEscrow) async throws {
            self.evm = evm
            let (database, openAnother) = try await backend.makeDatabase()
            self.openAnother = openAnother
            issuer = try await Self.issuer(on: database)
            settlement = try await Self.settlement(evm, issuer)
        }

        static func issuer(on database: any SQLDatabase, currency: String = "EUR") async throws -> Issuer {
            let keyring = IssuerKeyring(
                authority: SoftwareSigner(), issuing: [.init(signer: SoftwareSigner(), validFrom: 0, validUntil: 4_000_000_000)])
            return try await Issuer.open(
                database: database, keyring: keyring,
                config: IssuerConfig(currency: try #require(Currency(currency)), passwordCost: .testing),
                challengeSecret: Array(repeating: 7, count: 32))
        }

        static func settlement(_ evm: TestEscrow, _ issuer: Issuer, key: PrivateKey? = nil) async throws -> EscrowSettlement {
            var logger = Logger(label: "escrow-test")
            logger.logLevel = .critical
            return try await EscrowSettlement.connect(
                rpc: evm.rpc, escrow: evm.escrow, operatorKey: key ?? evm.operator,
                confirmations: EscrowSettlementTests.confirmations,
                startBlock: evm.startBlock, poll: .seconds(3_600), issuer: issuer, logger: logger)
        }

        /// Another server process on the same database (its own connections, its own settlement).
        func restarted() async throws -> EscrowSettlement {
            try await Self.settlement(evm, try await Self.issuer(on: try openAnother()))
        }

        /// A user account and its deposit reference.
        func account(_ name: String = "user") async throws -> (id: Int64, ref: [UInt8]) {
            let id = try await issuer.register(
                email: "\(name)-\(UUID().uuidString.prefix(8))@example.com", password: "correct horse battery")
            return (id, try await issuer.depositReference(account: id))
        }

        func balance(_ account: Int64) async throws -> Int64 { try await issuer.account(account).balance }

        /// Reconciles and expects the escrow to match the books.
        func expectReconciled(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let r = try await settlement.reconcile()
            #expect(r.ok, "escrow \(r.escrowBalance) ≠ expected \(r.expected): \(r)", sourceLocation: sourceLocation)
            #expect(try await issuer.checkLedger().isEmpty, sourceLocation: sourceLocation)
        }

        /// A deposit of `amount` for `account`, credited (mined, confirmed, scanned).
        func funded(_ amount: UInt64) async throws -> (id: Int64, ref: [UInt8]) {
            let account = try await account()
            try await evm.deposit(amount, ref: account.ref)
            try await evm.mine(EscrowSettlementTests.confirmations - 1)
            try await settlement.scanDeposits()
            #expect(try await balance(account.id) == Int64(amount))
            return account
        }

        /// A withdrawal of `amount` from a funded account whose payout was signed, recorded and
        /// broadcast, then dropped by the node before it was mined (the EVM taken back to
        /// just before the broadcast); automine on again. Returns the account, the recipient
        /// and the withdrawal as the books hold it (`sent`).
        func payoutTheNodeDropped(_ amount: UInt64) async throws -> (account: Int64, to: Address, sent: Withdrawal) {
            let account = try await funded(100_00)
            let to = EscrowSettlementTests.newAddress()
            try await evm.setAutomine(false)
            let w = try await issuer.requestWithdrawal(
                account: account.id, amount: amount, to: to.bytes, idempotencyKey: "withdraw-1")
            let beforeSend = try await evm.snapshot()
            #expect(try await settlement.settleWithdrawals().map(\.status) == [.sent])
            let sent = try #require(try await issuer.withdrawal(id: w.id))
            try await evm.revert(to: beforeSend)  // the pending transaction is gone
            try await evm.setAutomine(true)
            return (account.id, to, sent)
        }

        /// Mines until a payout sent now is confirmed, then runs a payout pass.
        func confirmAndSettle(_ settlement: EscrowSettlement? = nil) async throws -> [Withdrawal] {
            try await evm.mine(EscrowSettlementTests.confirmations - 1)
            return try await (settlement ?? self.settlement).settleWithdrawals()
        }
    }

    static func newAddress() -> Address { PrivateKey.generate().address }

    // MARK: Deposits

    /// Credited only once the deposit's block has 3 confirmations (itself and 2 on top), once
    /// however often it is scanned; reconciliation holds before (counted as uncredited) and after.
    @Test(arguments: Backend.available)
    func aDepositIsCreditedOnceAfterItsConfirmations(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.account()
            try await h.evm.deposit(12_34, ref: account.ref)
            #expect(try await h.settlement.scanDeposits().isEmpty)  // 1 confirmation
            try await h.expectReconciled()
            try await h.evm.mine()
            #expect(try await h.settlement.scanDeposits().isEmpty)  // 2
            #expect(try await h.balance(account.id) == 0)
            try await h.evm.mine()
            let found = try await h.settlement.scanDeposits()  // 3
            #expect(found.map(\.outcome) == [.credited(account: account.id)])
            #expect(try await h.balance(account.id) == 12_34)
            try await h.expectReconciled()
            try await h.evm.mine(5)
            #expect(try await h.settlement.scanDeposits().isEmpty)
            #expect(try await h.balance(account.id) == 12_34)
            try await h.expectReconciled()
        }
    }

    /// Two server processes scanning the same blocks at once, and a restarted one scanning
    /// again from the start block (its cursor lost), credit the deposit once.
    @Test(arguments: Backend.available)
    func theSameDepositScannedByTwoServersAndAgainAfterARestartIsCreditedOnce(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.account()
            try await h.evm.deposit(50_00, ref: account.ref)
            try await h.evm.deposit(7_00, ref: account.ref)  // two deposits, two blocks
            try await h.evm.mine(Self.confirmations - 1)
            let other = try await h.restarted()
            async let first = h.settlement.scanDeposits()
            async let second = other.scanDeposits()
            let outcomes = try await first.map(\.outcome) + second.map(\.outcome)
            #expect(outcomes.filter { $0 == .credited(account: account.id) }.count == 2)
            #expect(try await h.balance(account.id) == 57_00)
            // A replay: the books' cursor put back (a crash between crediting and saving it cannot
            // happen — one transaction — but a restored backup of escrow_state can), so a restarted
            // server scans the same blocks from the start block again.
            try await h.openAnother().transaction {
                try await $0.execute("UPDATE escrow_state SET scanned_through = NULL WHERE id = 1")
            }
            let again = try await h.restarted()
            _ = try await again.scanDeposits()
            #expect(try await h.balance(account.id) == 57_00)
            try await h.expectReconciled()
        }
    }

    /// A deposit a reorganisation takes back before its confirmations is never credited, even
    /// though the block number it had is mined again (with other contents) and confirmed.
    @Test(arguments: Backend.available)
    func aDepositReorganisedAwayBeforeItsConfirmationsIsNeverCredited(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.account()
            let before = try await h.evm.snapshot()
            try await h.evm.deposit(99_00, ref: account.ref)
            try await h.evm.mine(Self.confirmations - 2)  // one confirmation short
            #expect(try await h.settlement.scanDeposits().isEmpty)
            try await h.evm.revert(to: before)  // the reorganisation
            try await h.evm.mine(Self.confirmations + 3)
            #expect(try await h.settlement.scanDeposits().isEmpty)
            #expect(try await h.balance(account.id) == 0)
            try await h.expectReconciled()
        }
    }

    /// A reference that names no account is credited to system:unclaimed, so the books still
    /// hold what the escrow holds.
    @Test(arguments: Backend.available)
    func aDepositWithAnUnknownReferenceGoesToUnclaimed(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let ref = (0..<32).map { _ in UInt8.random(in: 0...255) }
            try await h.evm.deposit(3_21, ref: ref)
            try await h.evm.mine(Self.confirmations - 1)
            #expect(try await h.settlement.scanDeposits().map(\.outcome) == [.unclaimed])
            #expect(try await h.issuer.escrowLiabilities().unclaimed == 3_21)
            try await h.expectReconciled()
        }
    }

    /// A deposit beyond 64 bits (2^64 + 5 units) is refused by the books, not truncated to the 5
    /// its low bits hold; reconciliation cannot add it up and says so instead of lying.
    @Test(arguments: Backend.available)
    func aDepositTooLargeForTheLedgerIsRefusedNotTruncated(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.account()
            let huge = [UInt8](repeating: 0, count: 23) + [1] + [UInt8](repeating: 0, count: 7) + [5]
            try await h.evm.execute(
                from: h.evm.owner, to: h.evm.token, "mint(address,uint256)",
                [.address(h.evm.owner.address), .uint256(word: huge)])
            try await h.evm.deposit(.uint256(word: huge), ref: account.ref)
            try await h.evm.mine(Self.confirmations - 1)
            let outcomes = try await h.settlement.scanDeposits().map(\.outcome)
            #expect(outcomes.count == 1)
            if case .refused = outcomes.first {} else { Issue.record("expected refused, got \(outcomes)") }
            #expect(try await h.balance(account.id) == 0)
            await #expect(throws: EscrowSettlementError.self) { try await h.settlement.reconcile() }
        }
    }

    // MARK: Withdrawals

    /// Paid to the cent: the recipient gets exactly the amount, the escrow loses exactly it,
    /// and reconciliation holds while the payout is mined but not settled, and after.
    @Test(arguments: Backend.available)
    func aWithdrawalIsPaidToTheCent(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.funded(100_00)
            let to = Self.newAddress()
            let escrowBefore = try await h.evm.tokenBalance(h.evm.escrow)
            let w = try await h.issuer.requestWithdrawal(
                account: account.id, amount: 40_01, to: to.bytes, idempotencyKey: "withdraw-1")
            #expect(try await h.balance(account.id) == 59_99)
            try await h.expectReconciled()
            #expect(try await h.settlement.settleWithdrawals().map(\.status) == [.sent])  // mined at once (automine)
            try await h.expectReconciled()  // paid on the blockchain, not yet settled
            #expect(try await h.confirmAndSettle().map(\.status) == [.paid])
            #expect(try await h.issuer.withdrawal(id: w.id)?.status == .paid)
            #expect(try await h.evm.tokenBalance(to) == 40_01)
            #expect(try await h.evm.tokenBalance(h.evm.escrow) == escrowBefore - 40_01)
            #expect(try await h.balance(account.id) == 59_99)
            #expect(try await h.issuer.openWithdrawals().isEmpty)
            try await h.expectReconciled()
        }
    }

    /// The owner paused the escrow: the payout is mined as a revert, the withdrawal is refused
    /// with the reason and the money is back on the account.
    @Test(arguments: Backend.available)
    func aPayoutTheEscrowRefusesGivesTheMoneyBack(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.funded(100_00)
            try await h.evm.setPaused(true)
            let to = Self.newAddress()
            let w = try await h.issuer.requestWithdrawal(
                account: account.id, amount: 25_00, to: to.bytes, idempotencyKey: "withdraw-1")
            #expect(try await h.settlement.settleWithdrawals().map(\.status) == [.sent])
            #expect(try await h.settlement.settleWithdrawals().map(\.status) == [.sent])  // not confirmed yet: waits
            #expect(try await h.balance(account.id) == 75_00)
            #expect(try await h.confirmAndSettle().map(\.status) == [.refused])
            let refused = try #require(try await h.issuer.withdrawal(id: w.id))
            #expect(refused.status == .refused)
            #expect(refused.reason?.contains("paused") == true, "\(refused.reason ?? "no reason")")
            #expect(try await h.balance(account.id) == 100_00)
            #expect(try await h.evm.tokenBalance(to) == 0)
            try await h.expectReconciled()
        }
    }

    /// A payout above what the escrow's daily cap leaves is refused on the blockchain; the reason names
    /// the cap in money, and the money is back on the account.
    @Test(arguments: Backend.available)
    func aPayoutOverTheDailyCapIsRefusedWithTheCap(_ backend: Backend) async throws {
        try await TestEscrow.run(dailyCap: 10_00) { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.funded(100_00)
            let w = try await h.issuer.requestWithdrawal(
                account: account.id, amount: 10_01, to: Self.newAddress().bytes, idempotencyKey: "withdraw-1")
            _ = try await h.settlement.settleWithdrawals()
            #expect(try await h.confirmAndSettle().map(\.status) == [.refused])
            let reason = try #require(try await h.issuer.withdrawal(id: w.id)?.reason)
            #expect(reason.contains("daily payout cap (10.00 EUR a day, 0.00 EUR paid today)"), "\(reason)")
            #expect(try await h.balance(account.id) == 100_00)
            try await h.expectReconciled()
        }
    }

    /// The server dies after broadcasting a payout and before its receipt: a new server on the
    /// same database completes it once, and the recipient is paid once.
    @Test(arguments: Backend.available)
    func aServerKilledBetweenSendAndReceiptCompletesOnce(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.funded(100_00)
            let to = Self.newAddress()
            try await h.evm.setAutomine(false)
            let w = try await h.issuer.requestWithdrawal(
                account: account.id, amount: 30_00, to: to.bytes, idempotencyKey: "withdraw-1")
            #expect(try await h.settlement.settleWithdrawals().map(\.status) == [.sent])
            // The server is gone; the payout is mined while nobody watches.
            try await h.evm.mine(Self.confirmations)
            try await h.evm.setAutomine(true)
            let restarted = try await h.restarted()
            #expect(try await restarted.settleWithdrawals().map(\.status) == [.paid])
            #expect(try await restarted.settleWithdrawals().isEmpty)
            #expect(try await h.evm.tokenBalance(to) == 30_00)
            #expect(try await h.evm.payouts(of: w.id).count == 1)
            #expect(try await h.balance(account.id) == 70_00)
            try await h.expectReconciled()
        }
    }

    /// The node lost the payout (dropped from its pool before it was mined): the next pass
    /// broadcasts the very same bytes again and it is paid once.
    @Test(arguments: Backend.available)
    func aPayoutTheNodeLostIsBroadcastAgain(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let (_, to, sent) = try await h.payoutTheNodeDropped(10_00)
            let w = sent
            #expect(try await h.evm.rpc.transaction(try #require(sent.txHash)) == nil)
            _ = try await h.settlement.settleWithdrawals()  // broadcast again (automine: mined)
            #expect(try await h.evm.rpc.receipt(try #require(sent.txHash))?.status == 1)
            #expect(try await h.confirmAndSettle().map(\.status) == [.paid])
            let paid = try #require(try await h.issuer.withdrawal(id: w.id))
            #expect(paid.txHash == sent.txHash && paid.nonce == sent.nonce)
            #expect(try await h.evm.tokenBalance(to) == 10_00)
            try await h.expectReconciled()
        }
    }

    /// Another transaction of the operator key took the payout's nonce: the payout is dead,
    /// signed again with a new nonce, and paid once.
    @Test(arguments: Backend.available)
    func aDeadPayoutIsSignedAgainAndPaidOnce(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let (account, to, dead) = try await h.payoutTheNodeDropped(20_00)
            let w = dead
            let nonce = try #require(dead.nonce)
            // Someone with the operator key (an operator's manual transaction) uses that nonce.
            try await h.evm.send(from: h.evm.operator, to: h.evm.operator.address, nonce: nonce)
            #expect(try await h.evm.rpc.transactionCount(h.evm.operator.address, .latest) == nonce + 1)
            #expect(try await h.settlement.settleWithdrawals().map(\.status) == [.sent])  // re-signed and sent
            let resent = try #require(try await h.issuer.withdrawal(id: w.id))
            #expect(resent.nonce == nonce + 1 && resent.txHash != dead.txHash)
            #expect(try await h.confirmAndSettle().map(\.status) == [.paid])
            #expect(try await h.evm.tokenBalance(to) == 20_00)
            #expect(try await h.evm.payouts(of: w.id).count == 1)
            #expect(try await h.balance(account) == 80_00)
            try await h.expectReconciled()
        }
    }

    /// The leaked-key runbook mid-payout: a payout signed by the old operator key was lost, the
    /// thief spent that key's nonce, and the owner made a new key the operator. The server,
    /// restarted with the new key, finds the old transaction dead (by its signer's nonce, not
    /// the new key's), signs it again with the new key's own nonces, and it is paid once.
    @Test(arguments: [Backend.sqlite])
    func aPayoutOfAReplacedOperatorKeyIsSignedAgainWithTheNewKey(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let (account, to, dead) = try await h.payoutTheNodeDropped(20_00)
            let oldNonce = try #require(dead.nonce)
            try await h.evm.send(from: h.evm.operator, to: h.evm.operator.address, nonce: oldNonce)
            let newKey = PrivateKey.generate()
            _ = try await h.evm.evm.send(from: h.evm.owner, to: newKey.address, value: 1_000_000_000_000_000_000)
            try await h.evm.execute(
                from: h.evm.owner, to: h.evm.escrow, "set_operator(address)", [.address(newKey.address)])
            let restarted = try await Harness.settlement(evm, h.issuer, key: newKey)
            #expect(try await restarted.settleWithdrawals().map(\.status) == [.sent])
            let resent = try #require(try await h.issuer.withdrawal(id: dead.id))
            #expect(resent.nonce == 0, "the new key's first transaction")
            #expect(try await h.confirmAndSettle(restarted).map(\.status) == [.paid])
            #expect(try await h.evm.tokenBalance(to) == 20_00)
            #expect(try await h.evm.payouts(of: dead.id).count == 1)
            #expect(try await h.balance(account) == 80_00)
        }
    }

    // MARK: Reconciliation and the service

    /// Tokens transferred straight to the escrow (not through deposit) are in no account:
    /// reconciliation fails with exactly that difference — until an admin books them as
    /// surplus (into system:unclaimed), once, and never more than the difference.
    @Test(arguments: Backend.available)
    func tokensSentStraightToTheEscrowShowAsTheDifference(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            _ = try await h.funded(10_00)
            try await h.expectReconciled()
            let transfer = try await h.evm.evm.send(
                from: h.evm.owner, to: h.evm.token,
                data: try ABI.Function(signature: "transfer(address,uint256)").callData([
                    .address(h.evm.escrow), .uint256(UInt64(5_00)),
                ]),
                gasLimit: 300_000)
            #expect(try await h.evm.evm.minedReceipt(transfer.hash).status == 1)
            let r = try await h.settlement.reconcile()
            #expect(!r.ok)
            #expect(r.difference == 5_00)
            #expect(r.escrowBalance == r.expected + 5_00)
            #expect(h.settlement.lastReconciliation == r)

            // Booked as the admin route does: the surplus total read first, then a reconciliation.
            let admin = try await h.issuer.register(
                email: "admin-\(UUID().uuidString.prefix(6))@example.com", password: "correct horse battery", role: "admin")
            func book(_ amount: UInt64, _ hash: [UInt8] = transfer.hash) async throws -> Result<EscrowSurplus, IssuerError> {
                let before = try await h.issuer.escrowSurplusBooked()
                let difference = try await h.settlement.reconcile().difference
                do throws(IssuerError) {
                    return .success(
                        try await h.issuer.bookEscrowSurplus(
                            txHash: hash, amount: amount, reason: "owner topped up by transfer", by: admin,
                            difference: difference, bookedBefore: before))
                } catch { return .failure(error) }
            }
            func refusal(_ result: Result<EscrowSurplus, IssuerError>) -> String? {
                if case .failure(let e) = result { e.code } else { nil }
            }
            #expect(refusal(try await book(5_01)) == "no_surplus")
            let booked = try await book(5_00).get()
            #expect(!booked.replayed)
            try await h.expectReconciled()
            #expect(try await h.settlement.reconcile().unclaimed == 5_00)
            #expect(try await book(5_00).get().replayed, "booked once per transaction")
            #expect(refusal(try await book(1, Array(repeating: 9, count: 32))) == "no_surplus", "nothing left to book")
            try await h.expectReconciled()
        }
    }

    /// The service loop: a wake-up (as a withdrawal request sends) starts a pass at once, long
    /// before its poll interval (an hour here); cancelling the task ends it.
    @Test(arguments: [Backend.sqlite])
    func theServiceCreditsAndPaysWhenWokenAndStopsWhenCancelled(_ backend: Backend) async throws {
        try await TestEscrow.run { evm in
            let h = try await Harness(backend, evm)
            let account = try await h.account()
            let service = Task { await h.settlement.run() }
            try await h.evm.deposit(10_00, ref: account.ref)
            try await h.evm.mine(Self.confirmations - 1)
            try await eventually(waking: h.settlement) { try await h.balance(account.id) == 10_00 }
            let w = try await h.issuer.requestWithdrawal(
                account: account.id, amount: 4_00, to: Self.newAddress().bytes, idempotencyKey: "withdraw-1")
            try await eventually(waking: h.settlement) { try await h.issuer.withdrawal(id: w.id)?.status == .sent }
            try await h.evm.mine(Self.confirmations - 1)
            try await eventually(waking: h.settlement) { try await h.issuer.withdrawal(id: w.id)?.status == .paid }
            service.cancel()
            await service.value
            try await h.expectReconciled()
        }
    }

    /// Wakes the service, then waits for a condition it brings about (a liveness bound, not a
    /// timing assertion). With no poll to retry a pass that failed (a slow answer from the
    /// node, a busy database), it wakes the service again every second, as the API's requests
    /// and the poll do in a server.
    func eventually(waking settlement: EscrowSettlement, _ condition: () async throws -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(120)
        var nextWake = clock.now
        while try await !condition() {
            guard clock.now < deadline else {
                Issue.record("the service did not get there in 120 s")
                return
            }
            if clock.now >= nextWake {
                settlement.wake()
                nextWake = clock.now + .seconds(1)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: Start-up checks

    /// A key that is not the escrow's operator, and a currency whose digits differ from the
    /// token's decimals, are refused at start with both values named.
    @Test func startingWithTheWrongOperatorKeyOrCurrencyIsRefused() async throws {
        try await TestEscrow.run { evm in
            let (database, _) = try await Backend.sqlite.makeDatabase()
            let issuer = try await Harness.issuer(on: database)
            let stranger = PrivateKey.generate()
            do {
                _ = try await Harness.settlement(evm, issuer, key: stranger)
                Issue.record("a stranger's key was accepted as the operator")
            } catch let error as EscrowSettlementError {
                #expect(error.description.contains(evm.operator.address.checksummed))
                #expect(error.description.contains(stranger.address.checksummed))
            }
            let (yenDatabase, _) = try await Backend.sqlite.makeDatabase()
            let yen = try await Harness.issuer(on: yenDatabase, currency: "JPY")
            do {
                _ = try await Harness.settlement(evm, yen)
                Issue.record("a 2-decimal token was accepted for JPY")
            } catch let error as EscrowSettlementError {
                #expect(error.description.contains("2 decimals") && error.description.contains("JPY"))
            }
        }
    }

    /// EIP-55 input rules through the monitor the HTTP layer uses.
    @Test func addressesAreCheckedAndShownWithTheirChecksum() async throws {
        try await TestEscrow.run { evm in
            let (database, _) = try await Backend.sqlite.makeDatabase()
            let settlement = try await Harness.settlement(evm, try await Harness.issuer(on: database))
            let wallet = PrivateKey.generate().address
            let text = wallet.checksummed
            #expect(try settlement.parseAddress(text) == wallet.bytes)
            #expect(try settlement.parseAddress(text.lowercased()) == wallet.bytes)
            #expect(settlement.format(address: wallet.bytes) == text)
            // The escrow and its token are not wallets: paid there, the money never leaves
            // the escrow, or is lost in the token contract.
            for contract in [evm.escrow, evm.token] {
                #expect(throws: IssuerError.self) { try settlement.parseAddress(contract.checksummed) }
                #expect(throws: IssuerError.self) { try settlement.parseAddress(contract.checksummed.lowercased()) }
            }
            // One letter's case flipped: still mixed case, so the checksum must hold, and it does not.
            var digits = Array(text)
            let letter = try #require(digits.indices.dropFirst(2).first { digits[$0].isLetter })
            digits[letter] = Character(digits[letter].isUppercase ? digits[letter].lowercased() : digits[letter].uppercased())
            let flipped = String(digits)
            if flipped.dropFirst(2).contains(where: \.isUppercase) && flipped.dropFirst(2).contains(where: \.isLowercase) {
                #expect(throws: IssuerError.self) { try settlement.parseAddress(flipped) }
            }
            #expect(throws: IssuerError.self) { try settlement.parseAddress("0x" + String(repeating: "0", count: 40)) }
        }
    }
}
