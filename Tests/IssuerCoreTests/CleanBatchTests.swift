import Foundation
import IssuerTesting
import OfflineNotes
import SQLStore
import Synchronization
import Testing
import WalletCore

@testable import IssuerCore

/// On PostgreSQL a redemption batch whose chains are all clean is written in one statement
/// outside a transaction (`Issuer.commitInOneStatement`, `Ledger.Deltas.applyCommittingAlone`):
/// the statement commits alone, so every check must be inside it. Anything it refuses must
/// leave nothing behind and reach the transaction, which answers each chain.
@Suite struct CleanBatchTests {
    func batches(_ h: IssuerHarness) -> (alone: Int, inTransaction: Int) {
        (
            h.issuer.redemptionBatches.committedAlone.load(ordering: .relaxed),
            h.issuer.redemptionBatches.inTransaction.load(ordering: .relaxed)
        )
    }

    @Test(arguments: Backend.available)
    func aCleanBatchIsWrittenInOneStatementOnPostgreSQL(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (bob, bobWallet) = try await h.user("bob")
        // Four payers, so that no two chains share a state.
        var chains: [Chain] = []
        for (i, amount) in [700, 1_300, 2_000, 500].enumerated() {
            let (_, payer) = try await h.user("payer\(i)", funds: 5_000, purchase: 5_000)
            chains += try h.pay(UInt64(amount), from: payer, to: bobWallet)
        }
        let results = try await h.issuer.redeem(account: bob, chains: chains.map(\.encoded))
        #expect(results.map(\.creditedAmount).reduce(0, +) == 4_500)
        #expect(results.allSatisfy { if case .credited = $0 { true } else { false } })
        #expect(try await h.balance(bob) == 4_500)
        let (alone, inTransaction) = batches(h)
        if backend == .postgres {
            #expect(alone >= 1 && inTransaction == 0)
        } else {
            #expect(alone == 0 && inTransaction >= 1)
        }
        // Every row a transaction would have written: a retry is told it was credited already.
        #expect(try await h.issuer.redeem(account: bob, chains: [chains[0].encoded]) == [.alreadyCredited(amount: 700)])
        #expect(try await h.balance(bob) == 4_500)
        try await h.expectBooksBalance()
    }

    /// A payer paid Bob twice from one note: the second chain repeats the first one's first
    /// hop, already recorded with the same spender. That is no conflict, and the batch is
    /// still written in one statement.
    @Test(arguments: Backend.available)
    func aChainExtendingOneRedeemedBeforeIsStillClean(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let first = try h.pay(700, from: alice, to: bobWallet)[0]
        let second = try h.pay(1_300, from: alice, to: bobWallet)[0]
        #expect(second.transfers.count == 2 && second.transfers[0] == first.transfers[0])
        #expect(try await h.issuer.redeem(account: bob, chains: [first.encoded]) == [.credited(amount: 700)])
        let before = batches(h)
        #expect(try await h.issuer.redeem(account: bob, chains: [second.encoded]) == [.credited(amount: 1_300)])
        let after = batches(h)
        #expect(after.alone == before.alone + (backend == .postgres ? 1 : 0))
        #expect(try await h.balance(bob) == 2_000)
        #expect(try await h.issuer.fraudCases().isEmpty)
        try await h.expectBooksBalance()
    }

    /// A chain redeemed before passes the lookup (its note is not refunded, its key is the
    /// account's) and is caught by the statement's own count of the spent states it inserted
    /// (its redemption marker is not new): without that check it would be credited twice.
    @Test(arguments: Backend.available)
    func aBatchWithAChainRedeemedBeforeGoesToATransaction(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        // Two payers: the chains share no state, so the batch is clean to the lookup.
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (_, carol) = try await h.user("carol", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let first = try h.pay(1_000, from: alice, to: bobWallet)[0]
        let second = try h.pay(2_000, from: carol, to: bobWallet)[0]
        #expect(try await h.issuer.redeem(account: bob, chains: [first.encoded]) == [.credited(amount: 1_000)])
        let before = batches(h)
        // Both in one batch, as the queue would write them.
        let results = try await h.issuer.writeBatchForTests([first, second], account: bob)
        #expect(results == [.alreadyCredited(amount: 1_000), .credited(amount: 2_000)])
        #expect(try await h.balance(bob) == 3_000)
        let after = batches(h)
        #expect(after.alone == before.alone)
        #expect(after.inTransaction == before.inTransaction + 1)
        try await h.expectBooksBalance()
    }

    /// The connection of the one statement is cut while the statement waits for a row lock:
    /// whether it committed is unknown to the issuer, so the batch goes to a transaction,
    /// which finds the statement rolled back and credits the chain once.
    @Test(.enabled(if: Backend.url != nil))
    func aStatementCutMidwayIsSettledByTheTransaction() async throws {
        let h = try await IssuerHarness(.postgres)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chain = try h.pay(1_500, from: alice, to: bobWallet)[0]
        // Bob's account row, held so that the statement waits on it.
        let lock = try await RowLock(h, "SELECT id FROM account WHERE id = ? FOR UPDATE", [bob])
        let redemption = Task { try await h.issuer.redeem(account: bob, chains: [chain.encoded]) }
        // The statement's backend, waiting on the lock.
        let waiting = try #require(try await Self.blocked(by: [lock.pid], h, atLeast: 1).first)
        try await h.database.transaction {
            _ = try await $0.query("SELECT pg_terminate_backend(CAST(? AS INTEGER), 5000)", waiting)
        }
        try await lock.release()
        #expect(try await redemption.value == [.credited(amount: 1_500)])
        #expect(try await h.balance(bob) == 1_500)
        #expect(batches(h) == (alone: 0, inTransaction: 1))
        try await h.expectBooksBalance()
    }

    /// The expiry sweep meets a batch that has already locked the note (its statement waits on
    /// the float's shard): the sweep must wait for the batch and refund only what it left, not
    /// what the note held when the sweep first looked (which paid the redeemed part twice).
    @Test(.enabled(if: Backend.url != nil))
    func theSweepWaitsForABatchThatHoldsItsNote() async throws {
        let h = try await IssuerHarness(.postgres)
        let (alice, aliceWallet) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let chain = try h.pay(4_000, from: aliceWallet, to: bobWallet)[0]
        // One second before the grace ends: the redemption is accepted.
        h.clock.now += 30 * 86_400 + 14 * 86_400 - 1
        let float = try await h.database.transaction { try await Ledger.systemAccount($0, .float) }
        let shard = Ledger.Deltas(shard: h.issuer.shardOffset).shard
        // The float's shard the batch writes, held.
        let lock = try await RowLock(
            h, "SELECT shard FROM balance_shard WHERE account_id = ? AND shard = ? FOR UPDATE", [float, Int64(shard)])
        let redemption = Task { try await h.issuer.redeem(account: bob, chains: [chain.encoded]) }
        // The batch's statement waits on the shard, holding Bob's account and the note.
        let batchPID = try #require(try await Self.blocked(by: [lock.pid], h, atLeast: 1).first)
        h.clock.now += 2
        let sweep = Task { try await h.issuer.sweepExpired() }
        // The sweep waits too: on the note, or (had it read the note without waiting) later.
        _ = try await Self.blocked(by: [lock.pid, batchPID], h, atLeast: 2)
        try await lock.release()
        #expect(try await redemption.value == [.credited(amount: 4_000)])
        #expect(try await sweep.value == 1)
        #expect(try await h.balance(bob) == 4_000)
        #expect(try await h.balance(alice) == 6_000)
        try await h.expectBooksBalance()
    }

    /// The backends of this test's database that `blockers` block (the cluster serves other
    /// tests too), once there are at least `count` of them (waiting up to 10 s).
    static func blocked(by blockers: [Int64], _ h: IssuerHarness, atLeast count: Int) async throws -> [Int64] {
        for _ in 0..<1_000 {
            let pids = try await h.database.transaction { conn in
                try await conn.query(
                    "SELECT CAST(pid AS BIGINT) AS pid FROM pg_stat_activity WHERE pg_blocking_pids(pid) && CAST(? AS INTEGER[]) ORDER BY backend_start",
                    SQLValue.integers(blockers)
                ).map { try $0.int("pid") }
            }
            if pids.count >= count { return pids }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("fewer than \(count) backends were ever blocked by \(blockers)")
        return []
    }
}

/// A row lock held by a transaction on another connection (another process, as far as the
/// database can tell) until `release`.
struct RowLock {
    /// The holding backend's process id, for `pg_blocking_pids`.
    let pid: Int64
    private let releasing: AsyncStream<Void>.Continuation
    private let holder: Task<Void, any Error>
    private let database: any SQLDatabase

    /// Runs `lockingQuery` (a `SELECT … FOR UPDATE`) in a transaction that stays open.
    init(_ h: IssuerHarness, _ lockingQuery: String, _ binds: [any SQLBindable]) async throws {
        let database = try h.openAnother()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let (locked, lockedSignal) = AsyncStream<Int64>.makeStream()
        holder = Task {
            // Ends the wait below if the lock was never taken.
            defer { lockedSignal.finish() }
            try await database.transaction { conn in
                _ = try await conn.query(lockingQuery, binds)
                lockedSignal.yield(
                    try #require(try await conn.queryOne("SELECT CAST(pg_backend_pid() AS BIGINT) AS pid")).int("pid"))
                for await _ in release { break }
            }
        }
        var pid: Int64?
        for await held in locked {
            pid = held
            break
        }
        self.pid = try #require(pid)
        self.releasing = releasing
        self.database = database
    }

    /// Ends the holding transaction and closes its connection.
    func release() async throws {
        releasing.yield()
        try await holder.value
        await database.close()
    }
}

extension Issuer {
    /// `chains` (verified in full) as one group-commit batch, as the queue would write them.
    func writeBatchForTests(_ chains: [Chain], account: Int64) async throws -> [RedeemResult] {
        let pending = try chains.map { chain in
            let awaiting = try verifier.verifyChainAwaitingIssuerRecord(chain.encoded, now: UInt64(now), checkExpiry: false)
            return PendingRedemption(account: account, chain: awaiting, verified: nil, entry: random(16))
        }
        return try await commitBatch(pending, slot: 0).map {
            $0 ?? .invalid(code: "internal", reason: "left to a second transaction")
        }
    }
}

/// `Ledger.Deltas.applyCommittingAlone` itself: each way a count can fall short fails the
/// statement with its message, and the books are as they were.
@Suite(.enabled(if: Backend.url != nil)) struct CommittingAloneTests {
    struct Setup {
        let h: IssuerHarness
        let bob: Int64
        let float: Int64
        let noteID: [UInt8]
    }

    func setUp() async throws -> Setup {
        let h = try await IssuerHarness(.postgres)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 5_000)
        // Funded, so that adding Int64.max to Bob's balance overflows.
        let (bob, _) = try await h.user("bob", funds: 1)
        let noteID = try #require(try await h.database.transaction { try await $0.queryOne("SELECT note_id FROM issued_note") })
            .blob("note_id")
        let float = try await h.database.transaction { try await Ledger.systemAccount($0, .float) }
        _ = alice
        return Setup(h: h, bob: bob, float: float, noteID: noteID)
    }

    /// Bob credited `amount` from the float, against the note, as a redemption would post it.
    func deltas(_ s: Setup, amount: Int64) -> Ledger.Deltas {
        let deltas = Ledger.Deltas(shard: 3)
        deltas.byAccount[s.bob] = amount
        deltas.bySharded[s.float] = -amount
        deltas.redeemedByNote[s.noteID] = amount
        let entry = (0..<16).map { _ in UInt8.random(in: 0...255) }
        deltas.journal = [
            [entry, s.float, -amount, "redeem", SQLValue.null, Int64(1)],
            [entry, s.bob, amount, "redeem", SQLValue.null, Int64(1)],
        ]
        return deltas
    }

    /// With a leading CTE that returns the note's row: one.
    func apply(_ s: Setup, _ deltas: Ledger.Deltas, expected: Int = 1) async throws {
        try await s.h.database.outsideTransaction { conn in
            try await deltas.applyCommittingAlone(
                conn, leading: (["l_rows AS (SELECT note_id FROM issued_note WHERE note_id = ?)"], "l_rows", [s.noteID], expected)
            )
        }
    }

    func expectRefused(_ s: Setup, _ deltas: Ledger.Deltas, expected: Int = 1, _ comment: Comment) async throws {
        let books = try await Books.of(s.h.issuer)
        do {
            try await apply(s, deltas, expected: expected)
            Issue.record("applied: \(comment)")
        } catch SQLError.failed(let message) {
            #expect(message.contains(Ledger.Deltas.shortCountMessage), "\(comment): \(message)")
        }
        #expect(try await Books.of(s.h.issuer) == books, comment)
    }

    @Test func everyShortCountFailsTheStatementAndWritesNothing() async throws {
        let s = try await setUp()
        try await expectRefused(s, deltas(s, amount: 100), expected: 2, "the leading CTE short")
        try await expectRefused(s, deltas(s, amount: 100), expected: 0, "the leading CTE long")
        try await expectRefused(s, deltas(s, amount: Int64.max), "an account overflowing")
        let broken = deltas(s, amount: 100)
        broken.redeemedByNote[s.noteID] = Int64.max
        try await s.h.database.transaction {
            try await $0.execute("UPDATE issued_note SET redeemed = 1 WHERE note_id = ?", s.noteID)
        }
        try await expectRefused(s, broken, "a note's redeemed overflowing")
        try await s.h.database.transaction {
            try await $0.execute("UPDATE issued_note SET redeemed = 0 WHERE note_id = ?", s.noteID)
        }
        try await s.h.database.transaction {
            try await $0.execute("UPDATE issued_note SET swept = 1 WHERE note_id = ?", s.noteID)
        }
        try await expectRefused(s, deltas(s, amount: 100), "a note refunded since it was read")
        try await s.h.database.transaction {
            try await $0.execute("UPDATE issued_note SET swept = 0 WHERE note_id = ?", s.noteID)
        }
        try await s.h.database.transaction {
            try await $0.execute("DELETE FROM balance_shard WHERE account_id = ? AND shard = 3", s.float)
        }
        try await expectRefused(s, deltas(s, amount: 100), "a missing shard")
    }

    /// In a transaction the same note refunded since the lookup is a conflict to rerun: the
    /// batch's lookup then answers its chains `expired`.
    @Test func aNoteRefundedUnderATransactionsBatchRunsItAgain() async throws {
        let s = try await setUp()
        try await s.h.database.transaction {
            try await $0.execute("UPDATE issued_note SET swept = 1 WHERE note_id = ?", s.noteID)
        }
        let books = try await Books.of(s.h.issuer)
        await #expect(throws: SQLError.retryable("a note was refunded after expiry while the batch was written")) {
            try await s.h.database.transaction { conn in try await deltas(s, amount: 100).apply(conn) }
        }
        #expect(try await Books.of(s.h.issuer) == books)
    }

    @Test func aFullCountCommitsEverything() async throws {
        let s = try await setUp()
        let before = try await Books.of(s.h.issuer)
        try await apply(s, deltas(s, amount: 100))
        let after = try await Books.of(s.h.issuer)
        #expect(after.rows["journal"] == (before.rows["journal"] ?? 0) + 2)
        #expect(after.sums["issued_note.redeemed"] == (before.sums["issued_note.redeemed"] ?? 0) + 100)
        #expect(try await s.h.balance(s.bob) == 101)
    }

    /// Outside a transaction, a statement on a connection that is lost before it is answered
    /// may have committed: the store says so and runs nothing again.
    @Test func aLostConnectionOutsideATransactionIsAnUnknownOutcome() async throws {
        let s = try await setUp()
        // Each statement commits alone: the first stays when the second fails.
        await #expect(throws: SQLError.self) {
            try await s.h.database.outsideTransaction { conn in
                try await conn.execute("UPDATE account SET frozen = 1 WHERE id = ?", s.bob)
                try await conn.execute("SELECT CAST('not a number' AS BIGINT)")
            }
        }
        #expect(try await s.h.issuer.account(s.bob).frozen)
        let runs = Mutex(0)
        do {
            try await s.h.database.outsideTransaction { conn in
                runs.withLock { $0 += 1 }
                _ = try await conn.query("SELECT pg_terminate_backend(pg_backend_pid())")
            }
            Issue.record("the statement was answered")
        } catch SQLError.outcomeUnknown {
        }
        #expect(runs.withLock { $0 } == 1)
    }
}
