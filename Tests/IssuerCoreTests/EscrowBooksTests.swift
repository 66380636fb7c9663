import Foundation
import IssuerTesting
import OfflineNotes
import SQLStore
import TestSupport
import Testing

@testable import IssuerCore

/// The books of escrow settlement: deposits credited exactly once, withdrawals
/// debited once and settled once, payout nonces never shared — on SQLite and PostgreSQL, with
/// a second "process" (its own connections) where concurrency matters.
@Suite struct EscrowBooksTests {
    static func bytes(_ n: Int, _ seed: UInt8) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &+ Int(seed) &* 31) | 1 } }
    static let address = bytes(20, 7)

    static func deposit(_ tx: UInt8, _ log: UInt64 = 0, block: UInt64 = 10, ref: [UInt8], amount: UInt64) -> EscrowDeposit {
        EscrowDeposit(txHash: bytes(32, tx), logIndex: log, blockNumber: block, accountRef: ref, amount: amount)
    }

    /// Journal rows of `kind`, per reference.
    static func postings(_ h: IssuerHarness, kind: String) async throws -> Int {
        try await h.database.transaction { conn in
            Int(try await conn.queryOne("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM journal WHERE kind = ?", kind)?.int("n") ?? 0)
        }
    }

    static func systemBalance(_ h: IssuerHarness, _ account: SystemAccount) async throws -> Int64 {
        try await h.database.transaction { conn in
            try await conn.queryOne("SELECT \(Ledger.balance(of: account)) AS balance")?.int("balance") ?? 0
        }
    }

    /// Runs every body in its own task, all released together by a barrier; their results.
    static func atOnce<T: Sendable>(_ bodies: [@Sendable () async throws -> T]) async throws -> [T] {
        let barrier = Barrier(parties: bodies.count)
        return try await withThrowingTaskGroup(of: T.self) { group in
            for body in bodies {
                group.addTask {
                    await barrier.arrive()
                    return try await body()
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    // MARK: Deposits

    @Test(arguments: Backend.available)
    func aDepositDeliveredTwiceIsCreditedOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice")
        let ref = try await h.issuer.depositReference(account: alice)
        #expect(ref.count == 32)
        #expect(try await h.issuer.depositReference(account: alice) == ref, "the reference is made once")
        let d = Self.deposit(1, ref: ref, amount: 1_234)
        #expect(try await h.issuer.creditEscrowDeposits([d], scannedThrough: 10) == [.credited(account: alice)])
        // A rescan delivers it again, and so does a batch holding it twice.
        #expect(try await h.issuer.creditEscrowDeposits([d], scannedThrough: 10) == [.duplicate])
        let e = Self.deposit(2, 3, ref: ref, amount: 100)
        #expect(
            try await h.issuer.creditEscrowDeposits([e, e, d], scannedThrough: 11) == [
                .credited(account: alice), .duplicate, .duplicate,
            ])
        #expect(try await h.balance(alice) == 1_334)
        #expect(try await Self.postings(h, kind: EscrowJournalKind.deposit) == 4)
        #expect(try await Self.systemBalance(h, .funding) == -1_334)
        try await h.expectBooksBalance()
    }

    /// Two processes crediting the same logs at once (two scanners after a restart): each
    /// deposit is credited by exactly one of them.
    @Test(arguments: Backend.available)
    func concurrentDeliveriesCreditEachDepositOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (alice, _) = try await h.user("alice")
        let ref = try await h.issuer.depositReference(account: alice)
        let deposits = (0..<20).map { Self.deposit(UInt8($0), UInt64($0), block: 20, ref: ref, amount: 10) }
        let outcomes = try await Self.atOnce(
            [(h.issuer, deposits), (other, deposits.reversed())].map { issuer, batch in
                { try await issuer.creditEscrowDeposits(batch, scannedThrough: 20) }
            }
        ).flatMap { $0 }
        #expect(outcomes.filter { $0 == .credited(account: alice) }.count == 20)
        #expect(outcomes.filter { $0 == .duplicate }.count == 20)
        #expect(try await h.balance(alice) == 200)
        #expect(try await Self.postings(h, kind: EscrowJournalKind.deposit) == 40)
        try await h.expectBooksBalance()
    }

    /// An unknown reference goes to system:unclaimed; a frozen account is credited (money it
    /// received is its own); amount 0 is recorded and refused, nothing posted.
    @Test(arguments: Backend.available)
    func unknownReferencesAreUnclaimedFrozenAccountsStillReceive(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice")
        let admin = try await h.issuer.register(email: "admin@escrow.test", password: "long enough password", role: "admin")
        let ref = try await h.issuer.depositReference(account: alice)
        try await h.issuer.setFrozen(true, account: alice, by: admin, reason: "test freeze")
        let outcomes = try await h.issuer.creditEscrowDeposits(
            [
                Self.deposit(1, ref: Self.bytes(32, 99), amount: 700), Self.deposit(2, ref: ref, amount: 300),
                Self.deposit(3, ref: ref, amount: 0),
            ],
            scannedThrough: 10)
        #expect(outcomes == [.unclaimed, .credited(account: alice), .refused(reason: "amount 0")])
        #expect(try await Self.systemBalance(h, .unclaimed) == 700)
        #expect(try await h.balance(alice) == 300)
        #expect(
            try await h.issuer.creditEscrowDeposits([Self.deposit(3, ref: ref, amount: 0)], scannedThrough: 10) == [.duplicate])
        #expect(try await Self.postings(h, kind: EscrowJournalKind.deposit) == 4)
        // System accounts have no reference; malformed logs are refused whole.
        let funding = try await h.database.transaction { conn in try await Ledger.systemAccount(conn, .funding) }
        #expect(await issuerError { try await h.issuer.depositReference(account: funding) } == .accountNotFound)
        #expect(
            await issuerError {
                try await h.issuer.creditEscrowDeposits(
                    [EscrowDeposit(txHash: [1], logIndex: 0, blockNumber: 1, accountRef: ref, amount: 5)], scannedThrough: 11)
            } == .invalidField(field: "txHash", reason: "must be 32 bytes"))
        #expect(try await h.issuer.escrowCursor() == 10)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func theCursorOnlyMovesForward(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        #expect(try await h.issuer.escrowCursor() == nil)
        _ = try await h.issuer.creditEscrowDeposits([], scannedThrough: 0)
        #expect(try await h.issuer.escrowCursor() == 0)
        _ = try await h.issuer.creditEscrowDeposits([], scannedThrough: 50)
        _ = try await h.issuer.creditEscrowDeposits([], scannedThrough: 40)
        #expect(try await h.issuer.escrowCursor() == 50)
        _ = try await h.issuer.creditEscrowDeposits([], scannedThrough: 51)
        #expect(try await h.issuer.escrowCursor() == 51)
    }

    // MARK: Withdrawals

    @Test(arguments: Backend.available)
    func aWithdrawalDebitsOnceAndReplaysByItsKey(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice", funds: 10_000)
        let w = try await h.issuer.requestWithdrawal(
            account: alice, amount: 2_500, to: Self.address, idempotencyKey: "withdraw-1")
        #expect(w.status == .pending && w.amount == 2_500 && w.to == Self.address && w.account == alice && w.id.count == 32)
        #expect(w.nonce == nil && w.txHash == nil && w.rawTransaction == nil)
        let again = try await h.issuer.requestWithdrawal(
            account: alice, amount: 2_500, to: Self.address, idempotencyKey: "withdraw-1")
        #expect(again == w)
        #expect(
            await issuerError {
                try await h.issuer.requestWithdrawal(
                    account: alice, amount: 2_600, to: Self.address, idempotencyKey: "withdraw-1")
            } == .idempotencyConflict)
        #expect(try await h.balance(alice) == 7_500)
        #expect(try await Self.systemBalance(h, .withdrawals) == 2_500)
        #expect(try await h.issuer.withdrawals(account: alice) == [w])
        #expect(try await h.issuer.withdrawal(id: w.id, account: alice) == w)
        #expect(try await h.issuer.openWithdrawals() == [w])
        try await h.expectBooksBalance()
    }

    /// Two processes receive the same request (a client retry racing the first try): one
    /// withdrawal, one debit, both answered with it.
    @Test(arguments: Backend.available)
    func concurrentRetriesOfOneWithdrawalDebitOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (alice, _) = try await h.user("alice", funds: 1_000)
        let answers = try await Self.atOnce(
            [h.issuer, other].map { issuer in
                {
                    try await issuer.requestWithdrawal(
                        account: alice, amount: 600, to: Self.address, idempotencyKey: "same-key-twice")
                }
            })
        #expect(answers.count == 2 && answers[0] == answers[1])
        #expect(try await h.balance(alice) == 400)
        #expect(try await h.issuer.withdrawals(account: alice).count == 1)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func refusedWithdrawalsChangeNothing(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice", funds: 1_000)
        let admin = try await h.issuer.register(email: "admin@escrow.test", password: "long enough password", role: "admin")
        func attempt(_ amount: UInt64, to: [UInt8] = Self.address) async -> IssuerError? {
            await issuerError {
                try await h.issuer.requestWithdrawal(account: alice, amount: amount, to: to, idempotencyKey: UUID().uuidString)
            }
        }
        #expect(await attempt(1_001) == .insufficientFunds(balance: 1_000, requested: 1_001, currency: h.eur))
        #expect(await attempt(0) == .invalidField(field: "amount", reason: "must be positive"))
        #expect(await attempt(Amount.max + 1) == .invalidField(field: "amount", reason: "must be positive"))
        #expect(await attempt(10, to: Array(repeating: 0, count: 20))?.code == "invalid_field")
        #expect(await attempt(10, to: Array(Self.address.prefix(19)))?.code == "invalid_field")
        #expect(
            await issuerError {
                try await h.issuer.requestWithdrawal(account: alice, amount: 10, to: Self.address, idempotencyKey: "short")
            }?.code == "invalid_field")
        try await h.issuer.setFrozen(true, account: alice, by: admin, reason: "test freeze")
        #expect(await attempt(10) == .accountFrozenByOperator)
        #expect(try await h.balance(alice) == 1_000)
        #expect(try await h.issuer.withdrawals(account: alice).isEmpty)
        #expect(try await Self.postings(h, kind: "withdrawal") == 0)
        #expect(try await Self.systemBalance(h, .withdrawals) == 0)
        try await h.expectBooksBalance()
    }

    // MARK: Resolving unclaimed deposits and surplus (admin)

    static func admin(_ h: IssuerHarness) async throws -> Int64 {
        try await h.issuer.register(
            email: "admin-\(UUID().uuidString.prefix(6))@escrow.test", password: "long enough password", role: "admin")
    }

    /// An unclaimed deposit moves to the account once: the second call is refused and posts
    /// nothing; unknown deposits, system accounts, credited or refused deposits and empty
    /// reasons are refused, changing nothing.
    @Test(arguments: Backend.available)
    func anUnclaimedDepositIsAssignedOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice")
        let admin = try await Self.admin(h)
        let ref = try await h.issuer.depositReference(account: alice)
        let (lost, own, zero) = (
            Self.deposit(1, 2, ref: Self.bytes(32, 99), amount: 700), Self.deposit(2, ref: ref, amount: 300),
            Self.deposit(3, ref: ref, amount: 0)
        )
        _ = try await h.issuer.creditEscrowDeposits([lost, own, zero], scannedThrough: 10)
        #expect(try await Self.systemBalance(h, .unclaimed) == 700)

        let assigned = try await h.issuer.assignUnclaimedDeposit(
            txHash: lost.txHash, logIndex: 2, to: alice, reason: "  ticket 42: ref typo  ", by: admin)
        #expect(
            assigned
                == AssignedDeposit(
                    txHash: lost.txHash, logIndex: 2, blockNumber: 10, amount: 700, account: alice, reason: "ticket 42: ref typo",
                    assignedBy: admin,
                    assignedAt: assigned.assignedAt))
        #expect(try await h.balance(alice) == 1_000)
        #expect(try await Self.systemBalance(h, .unclaimed) == 0)
        let audit = try #require(try await h.issuer.auditLog(limit: 1).first)
        #expect(audit.actor == admin && audit.action == "escrow_deposit_assigned")
        #expect(
            audit.detail.contains(EVMHex.hex(lost.txHash)) && audit.detail.contains("log 2")
                && audit.detail.contains("account \(alice)"))
        #expect(audit.detail.hasSuffix(": ticket 42: ref typo"))

        // Again (a retry, a second admin): refused, nothing posted.
        #expect(
            await issuerError {
                try await h.issuer.assignUnclaimedDeposit(txHash: lost.txHash, logIndex: 2, to: alice, reason: "again", by: admin)
            }
                == .depositNotUnclaimed(status: "credited", account: alice))
        #expect(
            await issuerError {
                try await h.issuer.assignUnclaimedDeposit(txHash: own.txHash, logIndex: 0, to: alice, reason: "mine", by: admin)
            }
                == .depositNotUnclaimed(status: "credited", account: alice))
        #expect(
            await issuerError {
                try await h.issuer.assignUnclaimedDeposit(txHash: zero.txHash, logIndex: 0, to: alice, reason: "zero", by: admin)
            }
                == .depositNotUnclaimed(status: "refused", account: nil))
        #expect(
            await issuerError {
                try await h.issuer.assignUnclaimedDeposit(
                    txHash: lost.txHash, logIndex: 3, to: alice, reason: "other log", by: admin)
            }
                == .depositNotFound)
        #expect(
            await issuerError {
                try await h.issuer.assignUnclaimedDeposit(
                    txHash: lost.txHash, logIndex: UInt64.max, to: alice, reason: "huge", by: admin)
            }
                == .depositNotFound)
        // Refusals that come before the deposit is looked at: a fresh unclaimed one stays unclaimed.
        let next = Self.deposit(4, ref: Self.bytes(32, 98), amount: 50)
        _ = try await h.issuer.creditEscrowDeposits([next], scannedThrough: 11)
        let unclaimed = try await h.database.transaction { conn in try await Ledger.systemAccount(conn, .unclaimed) }
        for (account, reason) in [
            (unclaimed, "to the system"), (987_654, "no such account"), (alice, "no"), (alice, "line\nforged"),
            (alice, String(repeating: "x", count: 501)),
        ] {
            let error = await issuerError {
                try await h.issuer.assignUnclaimedDeposit(
                    txHash: next.txHash, logIndex: 0, to: account, reason: reason, by: admin)
            }
            #expect(error == .accountNotFound || error?.code == "invalid_field", "\(account) \(reason)")
        }
        #expect(
            await issuerError {
                try await h.issuer.assignUnclaimedDeposit(
                    txHash: [1, 2], logIndex: 0, to: alice, reason: "short hash", by: admin)
            }?.code == "invalid_field")
        #expect(try await Self.systemBalance(h, .unclaimed) == 50)
        #expect(try await Self.postings(h, kind: EscrowJournalKind.assignedDeposit) == 2)
        #expect(try await h.balance(alice) == 1_000)
        // Counted once among the deposits credited (assigning adds no deposit).
        #expect(try await h.issuer.escrowTotals().depositsCredited == 3)
        try await h.expectBooksBalance()
    }

    /// Two processes assign one deposit at once (to different accounts): one wins, the other
    /// is refused, and the money exists once.
    @Test(arguments: Backend.available)
    func concurrentAssignsOfOneDepositCreditOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (alice, _) = try await h.user("alice")
        let (bob, _) = try await h.user("bob")
        let admin = try await Self.admin(h)
        for round in 0..<5 {
            let d = Self.deposit(UInt8(10 + round), ref: Self.bytes(32, 99), amount: 100)
            _ = try await h.issuer.creditEscrowDeposits([d], scannedThrough: 10)
            let outcomes = try await Self.atOnce(
                [(h.issuer, alice), (other, bob)].map { issuer, account in
                    { () async throws -> IssuerError? in
                        await issuerError {
                            try await issuer.assignUnclaimedDeposit(
                                txHash: d.txHash, logIndex: 0, to: account, reason: "race \(round)", by: admin)
                        }
                    }
                })
            #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.filter { $0?.code == "deposit_not_unclaimed" }.count == 1, "round \(round): \(outcomes)")
        }
        #expect(try await h.balance(alice) + h.balance(bob) == 500)
        #expect(try await Self.systemBalance(h, .unclaimed) == 0)
        #expect(try await Self.postings(h, kind: EscrowJournalKind.assignedDeposit) == 10)
        try await h.expectBooksBalance()
    }

    /// Surplus is booked only against a positive reconciliation difference, once per
    /// transaction hash; surplus booked since the reconciliation was read is taken off it.
    @Test(arguments: Backend.available)
    func surplusIsBookedOnlyAgainstTheDifferenceAndOncePerTransaction(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let admin = try await Self.admin(h)
        let (tx, otherTx) = (Self.bytes(32, 40), Self.bytes(32, 41))
        func book(_ hash: [UInt8], _ amount: UInt64, difference: Int64, before: Int64 = 0) async -> (EscrowSurplus?, IssuerError?)
        {
            do throws(IssuerError) {
                return (
                    try await h.issuer.bookEscrowSurplus(
                        txHash: hash, amount: amount, reason: "transfer to escrow", by: admin, difference: difference,
                        bookedBefore: before), nil
                )
            } catch { return (nil, error) }
        }
        #expect(await book(tx, 500, difference: 0).1 == .noSurplus(available: 0, requested: 500, currency: h.eur))
        #expect(await book(tx, 500, difference: -20).1?.code == "no_surplus")
        #expect(await book(tx, 501, difference: 500).1 == .noSurplus(available: 500, requested: 501, currency: h.eur))
        #expect(try await Self.postings(h, kind: EscrowJournalKind.surplus) == 0)

        let booked = try #require(await book(tx, 500, difference: 500).0)
        #expect(!booked.replayed && booked.amount == 500 && booked.bookedBy == admin && booked.reason == "transfer to escrow")
        #expect(try await Self.systemBalance(h, .unclaimed) == 500)
        #expect(try await Self.systemBalance(h, .funding) == -500)
        #expect(try await h.issuer.escrowSurplusBooked() == 500)
        let audit = try #require(try await h.issuer.auditLog(limit: 1).first)
        #expect(audit.actor == admin && audit.action == "escrow_surplus_booked" && audit.detail.contains(EVMHex.hex(tx)))

        // The same transaction again: the first booking, nothing posted — even though the
        // difference is gone now; another amount is a conflict.
        let replay = try #require(await book(tx, 500, difference: 0, before: 500).0)
        #expect(replay.replayed && replay.bookedAt == booked.bookedAt && replay.bookedBy == admin)
        #expect(await book(tx, 400, difference: 400, before: 500).1 == .surplusConflict(booked: 500, currency: h.eur))
        // A reconciliation read before that booking (difference 500, booked-before 0) is stale:
        // the 500 booked since is taken off, so another hash cannot book the same tokens.
        #expect(
            await book(otherTx, 500, difference: 500, before: 0).1 == .noSurplus(available: 0, requested: 500, currency: h.eur))
        // A fresh one showing a new transfer books it.
        #expect(await book(otherTx, 70, difference: 70, before: 500).0?.replayed == false)
        #expect(try await Self.postings(h, kind: EscrowJournalKind.surplus) == 4)
        #expect(try await Self.systemBalance(h, .unclaimed) == 570)
        #expect(
            await issuerError {
                try await h.issuer.bookEscrowSurplus(
                    txHash: tx, amount: 1, reason: "x", by: admin, difference: 9, bookedBefore: 570)
            }?.code == "invalid_field")
        try await h.expectBooksBalance()
    }

    /// Two admins (two processes) book one outside transfer under two hashes at once, both
    /// having seen the same difference: only one booking gets it.
    @Test(arguments: Backend.available)
    func concurrentSurplusBookingsCannotSpendOneDifferenceTwice(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let admin = try await Self.admin(h)
        for round in 0..<4 {
            let before = try await h.issuer.escrowSurplusBooked()
            let outcomes = try await Self.atOnce(
                [h.issuer, other].enumerated().map { i, issuer in
                    { () async throws -> IssuerError? in
                        await issuerError {
                            try await issuer.bookEscrowSurplus(
                                txHash: Self.bytes(32, UInt8(50 + 2 * round + i)), amount: 300, reason: "race \(round)",
                                by: admin, difference: 300, bookedBefore: before)
                        }
                    }
                })
            #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.filter { $0?.code == "no_surplus" }.count == 1, "round \(round): \(outcomes)")
        }
        #expect(try await Self.systemBalance(h, .unclaimed) == 1_200)
        try await h.expectBooksBalance()
    }

    // MARK: Payouts

    static func signer(_ id: [UInt8]) -> (UInt64) throws -> (raw: [UInt8], hash: [UInt8]) {
        { nonce in
            (
                raw: [2] + id + withUnsafeBytes(of: nonce.bigEndian, Array.init),
                hash: Array(id.prefix(24)) + withUnsafeBytes(of: nonce.bigEndian, Array.init)
            )
        }
    }

    @Test(arguments: Backend.available)
    func aPayoutTakesTheNextNonceOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice", funds: 1_000)
        let a = try await h.issuer.requestWithdrawal(account: alice, amount: 100, to: Self.address, idempotencyKey: "payout-a")
        let b = try await h.issuer.requestWithdrawal(account: alice, amount: 100, to: Self.address, idempotencyKey: "payout-b")
        let sentA = try await h.issuer.recordPayout(id: a.id, nodeNonce: 0, sign: Self.signer(a.id))
        let expected = try Self.signer(a.id)(0)
        #expect(
            sentA.status == .sent && sentA.nonce == 0 && sentA.rawTransaction == expected.raw && sentA.txHash == expected.hash)
        // Recorded already: returned unchanged, not signed again.
        let again = try await h.issuer.recordPayout(id: a.id, nodeNonce: 9) { _ in
            Issue.record("signed twice")
            return ([1], Self.bytes(32, 1))
        }
        #expect(again == sentA)
        // The EVM node knows of more transactions (sent by another tool): the nonce jumps to it.
        let sentB = try await h.issuer.recordPayout(id: b.id, nodeNonce: 7, sign: Self.signer(b.id))
        #expect(sentB.nonce == 7)
        // A dead transaction goes back to pending and gets a new nonce.
        let reset = try await h.issuer.resetPayout(id: a.id)
        #expect(reset.status == .pending && reset.nonce == nil && reset.txHash == nil && reset.rawTransaction == nil)
        #expect(try await h.issuer.recordPayout(id: a.id, nodeNonce: 0, sign: Self.signer(a.id)).nonce == 8)
        // Only a sent row resets.
        _ = try await h.issuer.completeWithdrawal(id: b.id, txHash: nil)
        #expect(try await h.issuer.resetPayout(id: b.id).status == .paid)
        // A signer's failure rolls back: still pending, nonce not taken.
        let c = try await h.issuer.requestWithdrawal(account: alice, amount: 100, to: Self.address, idempotencyKey: "payout-c")
        struct SignerDown: Error {}
        #expect(
            await issuerError { try await h.issuer.recordPayout(id: c.id, nodeNonce: 0) { _ in throw SignerDown() } }?.code
                == "storage")
        #expect(try await h.issuer.withdrawal(id: c.id)?.status == .pending)
        #expect(try await h.issuer.recordPayout(id: c.id, nodeNonce: 0, sign: Self.signer(c.id)).nonce == 9)
        #expect(
            await issuerError { try await h.issuer.recordPayout(id: Self.bytes(32, 5), nodeNonce: 0, sign: Self.signer(c.id)) }
                == .withdrawalNotFound)
        try await h.expectBooksBalance()
    }

    /// The books follow one escrow on one network; a new operator key (the leaked-key runbook)
    /// restarts the nonce at the EVM's count instead of the old key's.
    @Test(arguments: Backend.available)
    func theBooksFollowOneEscrowAndANewOperatorStartsAtItsOwnNonce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (escrow, oldOperator, newOperator) = (Self.bytes(20, 1), Self.bytes(20, 2), Self.bytes(20, 3))
        try await h.issuer.bindEscrow(chainID: 31_337, escrow: escrow, operatorAddress: oldOperator)
        let (alice, _) = try await h.user("alice", funds: 1_000)
        let a = try await h.issuer.requestWithdrawal(account: alice, amount: 100, to: Self.address, idempotencyKey: "bind-a-1")
        #expect(try await h.issuer.recordPayout(id: a.id, nodeNonce: 41, sign: Self.signer(a.id)).nonce == 41)
        // A restart with the same key keeps the nonce.
        try await h.issuer.bindEscrow(chainID: 31_337, escrow: escrow, operatorAddress: oldOperator)
        let b = try await h.issuer.requestWithdrawal(account: alice, amount: 100, to: Self.address, idempotencyKey: "bind-b-1")
        #expect(try await h.issuer.recordPayout(id: b.id, nodeNonce: 0, sign: Self.signer(b.id)).nonce == 42)
        // Another escrow or network is refused and changes nothing.
        #expect(
            await issuerError {
                try await h.issuer.bindEscrow(chainID: 31_337, escrow: Self.bytes(20, 9), operatorAddress: oldOperator)
            }?.code == "escrow_mismatch")
        #expect(
            await issuerError { try await h.issuer.bindEscrow(chainID: 1, escrow: escrow, operatorAddress: newOperator) }?.code
                == "escrow_mismatch")
        // The new operator's first payout takes the new key's count (0), not 43.
        try await h.issuer.bindEscrow(chainID: 31_337, escrow: escrow, operatorAddress: newOperator)
        let c = try await h.issuer.requestWithdrawal(account: alice, amount: 100, to: Self.address, idempotencyKey: "bind-c-1")
        #expect(try await h.issuer.recordPayout(id: c.id, nodeNonce: 0, sign: Self.signer(c.id)).nonce == 0)
        try await h.expectBooksBalance()
    }

    /// Two processes signing payouts at once never use one nonce twice.
    @Test(arguments: Backend.available)
    func concurrentPayoutsNeverShareANonce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (alice, _) = try await h.user("alice", funds: 100_000)
        var ids: [[UInt8]] = []
        for i in 0..<16 {
            ids.append(
                try await h.issuer.requestWithdrawal(
                    account: alice, amount: 10, to: Self.address, idempotencyKey: "nonce-\(i)-xyz"
                ).id)
        }
        let nonces = try await Self.atOnce(
            ids.enumerated().map { i, id in
                let issuer = i % 2 == 0 ? h.issuer : other
                return { try await issuer.recordPayout(id: id, nodeNonce: 0, sign: Self.signer(id)).nonce }
            })
        #expect(nonces.compactMap { $0 }.sorted() == Array(0..<UInt64(ids.count)))
        try await h.expectBooksBalance()
    }

    /// "Paid" and "refused" for one withdrawal arriving at once (two processes, each settling
    /// what it saw): exactly one wins and posts; the books show only the winner's entry.
    @Test(arguments: Backend.available)
    func settlementHappensExactlyOnceUnderConcurrency(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let other = try await h.secondProcess()
        let (alice, _) = try await h.user("alice", funds: 10_000)
        var refunds: Int64 = 0
        for round in 0..<6 {
            let w = try await h.issuer.requestWithdrawal(
                account: alice, amount: 100, to: Self.address, idempotencyKey: "settle-\(round)-xyz")
            _ = try await h.issuer.recordPayout(id: w.id, nodeNonce: 0, sign: Self.signer(w.id))
            let results = try await Self.atOnce(
                [h.issuer, other].flatMap { issuer -> [@Sendable () async throws -> Withdrawal] in
                    [
                        { try await issuer.completeWithdrawal(id: w.id, txHash: Self.bytes(32, 3)) },
                        { try await issuer.refuseWithdrawal(id: w.id, txHash: Self.bytes(32, 3), reason: "reverted") },
                    ]
                })
            let final = try #require(try await h.issuer.withdrawal(id: w.id))
            #expect(final.status == .paid || final.status == .refused)
            #expect(results.allSatisfy { $0.status == final.status })
            if final.status == .refused { refunds += 100 }
        }
        let paid = try await Self.postings(h, kind: "withdrawal-paid")
        let refused = try await Self.postings(h, kind: "withdrawal-refused")
        #expect(paid + refused == 12, "one two-posting entry per withdrawal")
        #expect(try await h.balance(alice) == 10_000 - 600 + refunds)
        #expect(try await Self.systemBalance(h, .withdrawals) == 0)
        #expect(try await h.issuer.openWithdrawals().isEmpty)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func aRefusedPayoutReturnsTheMoneyAndAPaidOneLeavesTheBooks(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice", funds: 1_000)
        let admin = try await h.issuer.register(email: "admin@escrow.test", password: "long enough password", role: "admin")
        let a = try await h.issuer.requestWithdrawal(account: alice, amount: 300, to: Self.address, idempotencyKey: "refuse-me")
        let b = try await h.issuer.requestWithdrawal(
            account: alice, amount: 200, to: Self.address, idempotencyKey: "pay-me-please")
        _ = try await h.issuer.recordPayout(id: a.id, nodeNonce: 0, sign: Self.signer(a.id))
        // Frozen meanwhile: the refund still reaches the account (the money is its own).
        try await h.issuer.setFrozen(true, account: alice, by: admin, reason: "test freeze")
        let refused = try await h.issuer.refuseWithdrawal(id: a.id, txHash: nil, reason: "escrow paused")
        #expect(refused.status == .refused && refused.reason == "escrow paused" && refused.txHash != nil)
        #expect(try await h.balance(alice) == 800)
        let paid = try await h.issuer.completeWithdrawal(id: b.id, txHash: Self.bytes(32, 4))
        #expect(paid.status == .paid && paid.txHash == Self.bytes(32, 4))
        #expect(try await h.balance(alice) == 800)
        // Late answers change nothing.
        #expect(try await h.issuer.completeWithdrawal(id: a.id, txHash: nil) == refused)
        #expect(try await h.issuer.refuseWithdrawal(id: b.id, txHash: nil, reason: "late") == paid)
        #expect(try await h.balance(alice) == 800)
        #expect(try await Self.systemBalance(h, .withdrawals) == 0)
        // The funding account got the paid 200 back: it stands at -(1000 - 200).
        #expect(try await Self.systemBalance(h, .funding) == -800)
        #expect(
            await issuerError { try await h.issuer.completeWithdrawal(id: Self.bytes(32, 8), txHash: nil) } == .withdrawalNotFound
        )
        try await h.expectBooksBalance()
    }

    // MARK: Schema

    /// The tables refuse rows no code path may write: unknown statuses, negative or zero
    /// amounts, a sent withdrawal without its transaction, a pending one with a nonce, a
    /// second escrow_state row.
    @Test(arguments: Backend.available)
    func theSchemaRefusesImpossibleRows(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, _) = try await h.user("alice")
        let insert =
            "INSERT INTO escrow_withdrawal(id, account_id, amount, to_address, status, nonce, tx_hash, raw_tx, idempotency_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)"
        func refused(_ sql: String, _ binds: [any SQLBindable]) async -> Bool {
            (try? await h.database.transaction { conn in try await conn.execute(sql, binds) }) == nil
        }
        let (id, to, hash) = (Self.bytes(32, 1), Self.address, Self.bytes(32, 2))
        let none: [UInt8]? = nil
        let noNonce: Int64? = nil
        #expect(await refused(insert, [id, alice, 10, to, "lost", noNonce, none, none, "k-1"]))
        #expect(await refused(insert, [id, alice, 0, to, "pending", noNonce, none, none, "k-2"]))
        #expect(await refused(insert, [id, alice, -5, to, "pending", noNonce, none, none, "k-3"]))
        #expect(await refused(insert, [id, alice, 10, to, "sent", noNonce, hash, [2], "k-4"]))
        #expect(await refused(insert, [id, alice, 10, to, "pending", Int64(3), none, none, "k-5"]))
        #expect(await refused(insert, [id, alice, 10, Array(to.prefix(19)), "pending", noNonce, none, none, "k-6"]))
        #expect(!(await refused(insert, [id, alice, 10, to, "sent", Int64(3), hash, [2], "k-7"])), "a valid row is accepted")
        let deposit =
            "INSERT INTO escrow_deposit(tx_hash, log_index, block_number, account_ref, account_id, amount, status, credited_at) VALUES (?, 0, 1, ?, ?, ?, ?, 0)"
        let nobody: Int64? = nil
        #expect(await refused(deposit, [hash, id, alice, -1, "credited"]))
        #expect(await refused(deposit, [hash, id, nobody, 5, "credited"]))
        #expect(await refused(deposit, [hash, id, alice, 5, "unclaimed"]))
        #expect(await refused(deposit, [hash, id, nobody, 0, "unclaimed"]))
        #expect(await refused(deposit, [hash, id, nobody, 5, "lost"]))
        let assigned =
            "INSERT INTO escrow_deposit(tx_hash, log_index, block_number, account_ref, account_id, amount, status, credited_at, assigned_by, assigned_at) VALUES (?, 1, 1, ?, ?, 5, ?, 0, ?, ?)"
        let never: Int64? = nil
        #expect(
            await refused(assigned, [hash, id, nobody, "unclaimed", alice, Int64(1)]), "only a credited deposit was assigned")
        #expect(
            await refused(assigned, [hash, id, alice, "credited", alice, never]),
            "assigned by someone at some time, both or neither")
        #expect(!(await refused(assigned, [hash, id, alice, "credited", alice, Int64(1)])), "a valid row is accepted")
        let surplus = "INSERT INTO escrow_surplus(tx_hash, amount, reason, booked_by, booked_at) VALUES (?, ?, 'r', ?, 0)"
        #expect(await refused(surplus, [hash, 0, alice]))
        #expect(await refused(surplus, [Array(hash.prefix(31)), 5, alice]))
        #expect(!(await refused(surplus, [hash, 5, alice])), "a valid row is accepted")
        #expect(await refused(surplus, [hash, 6, alice]), "one booking per transaction")
        #expect(await refused("INSERT INTO escrow_state(id, scanned_through, next_nonce) VALUES (2, 0, 0)", []))
        #expect(await refused("UPDATE escrow_state SET next_nonce = -1", []))
    }

    // MARK: Liabilities

    @Test(arguments: Backend.available)
    func liabilitiesAddUpToWhatTheEscrowMustHold(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (alice, wallet) = try await h.user("alice")
        let (bob, _) = try await h.user("bob")
        let ref = try await h.issuer.depositReference(account: alice)
        _ = try await h.issuer.creditEscrowDeposits(
            [Self.deposit(1, ref: ref, amount: 5_000), Self.deposit(2, ref: Self.bytes(32, 77), amount: 250)], scannedThrough: 30)
        _ = try await h.issuer.purchase(
            account: alice, walletKey: wallet.publicKey, amount: 1_000, idempotencyKey: "buy-some-notes")
        let w = try await h.issuer.requestWithdrawal(
            account: alice, amount: 1_500, to: Self.address, idempotencyKey: "withdraw-some")
        let paid = try await h.issuer.requestWithdrawal(
            account: alice, amount: 500, to: Self.address, idempotencyKey: "withdraw-paid")
        _ = try await h.issuer.completeWithdrawal(id: paid.id, txHash: nil)
        // A debt (as fraud recovery leaves): bob -40, alice +40; accounts stay what they were.
        try await h.database.transaction { conn in
            try await Ledger.post(
                conn, kind: "test", reference: nil,
                postings: [.init(account: bob, amount: -40), .init(account: alice, amount: 40)], entry: [9], now: 0)
        }
        let l = try await h.issuer.escrowLiabilities()
        #expect(l.accounts == 5_000 - 1_000 - 1_500 - 500)
        #expect(l.debts == 40)
        #expect(l.float == 1_000 && l.pendingWithdrawals == 1_500 && l.unclaimed == 250)
        #expect(l.creditedThrough == 30)
        #expect(l.open.map(\.id) == [w.id])
        // Deposited 5,250, paid out 500: the escrow holds 4,750, all of it owed.
        #expect(try l.total == 4_750)
        #expect(try await Self.systemBalance(h, .funding) == -4_750)
        let r = try Reconciliation(
            block: 31, escrowBalance: 4_750 + 60 - 500, liabilities: l, uncreditedDeposits: 60, paidNotSettled: 500)
        #expect(r.ok && r.expected == 4_310 && r.difference == 0 && r.creditedThrough == 30)
        let off = try Reconciliation(block: 31, escrowBalance: 4_700, liabilities: l, uncreditedDeposits: 0, paidNotSettled: 0)
        #expect(!off.ok && off.difference == -50)
        try await h.expectBooksBalance()
    }

    /// A database an earlier release left (schema version 9, its escrow tables named `chain_*`)
    /// keeps every escrow row under the `escrow_*` names, and no table, index, sequence or
    /// constraint keeps the old name.
    @Test(arguments: Backend.available)
    func aVersion9DatabaseKeepsItsEscrowRowsUnderTheirNewNames(_ backend: Backend) async throws {
        let (database, _) = try await backend.makeDatabase()
        try await Schema.migrate(database, now: 0, through: 9)
        let escrow = Self.bytes(20, 5)
        let operatorAddress = Self.bytes(20, 6)
        let ref = Self.bytes(32, 9)
        let account = try await database.transaction { conn in
            try await conn.execute(
                "UPDATE chain_state SET scanned_through = 41, next_nonce = 7, chain_id = 31337, escrow = ?, operator = ?",
                escrow, operatorAddress)
            try await conn.execute("INSERT INTO account(email, role, created_at) VALUES ('old@example.com', 'user', 0)")
            let id = try #require(try await conn.queryOne("SELECT id FROM account WHERE email = 'old@example.com'")?.int("id"))
            try await conn.execute("INSERT INTO chain_account_ref(account_id, ref, created_at) VALUES (?, ?, 0)", id, ref)
            return id
        }

        let issuer = try await IssuerHarness.issuer(on: database, clock: TestClock(IssuerHarness.start))
        #expect(try await issuer.escrowCursor() == 41)
        #expect(try await issuer.depositReference(account: account) == ref)
        try await issuer.bindEscrow(chainID: 31337, escrow: escrow, operatorAddress: operatorAddress)
        #expect(
            await issuerError {
                try await issuer.bindEscrow(chainID: 31337, escrow: Self.address, operatorAddress: operatorAddress)
            }?
            .code == "escrow_mismatch")
        let (version, leftovers) = try await database.transaction { conn in
            let version = try await conn.queryOne("SELECT CAST(MAX(version) AS BIGINT) AS v FROM schema_migration")?.int("v")
            let names =
                conn.dialect == .sqlite
                ? "SELECT name FROM sqlite_master WHERE name LIKE 'chain\\_%' ESCAPE '\\'"
                : """
                SELECT relname AS name FROM pg_class
                WHERE relnamespace = current_schema()::regnamespace AND relname LIKE 'chain\\_%'
                UNION ALL SELECT conname FROM pg_constraint
                WHERE connamespace = current_schema()::regnamespace AND conname LIKE 'chain\\_%'
                """
            return (version, try await conn.query(names).map { try $0.text("name") })
        }
        #expect(version == Int64(Schema.latestVersion))
        #expect(leftovers == [])
    }
}
