import Foundation
import IssuerTesting
import OfflineNotes
import SQLStore
import Synchronization
import Testing

@testable import IssuerCore

/// The float's cached balance lives in `balance_shard` rows (schema v8), so redemption
/// batches and purchases running at once, in one process or several, do not queue on the float
/// account's row lock until each one's COMMIT (which made four server processes slower than one).
@Suite struct FloatShardTests {
    final class Flag: Sendable { let state = Mutex(false) }

    static func floatID(_ db: any SQLDatabase) async throws -> Int64 {
        try #require(
            try await db.transaction { try await $0.queryOne("SELECT id FROM account WHERE email = 'system:float'")?.int("id") })
    }

    /// Every float posting goes to a shard, every reader sums them, and the books check sees a
    /// shard changed outside the journal or a shard on a user's account.
    @Test(arguments: Backend.available)
    func theFloatIsItsRowPlusItsShards(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, wallet) = try await h.user("payer", funds: 10_000, purchase: 6_000)
        let (payee, payeeWallet) = try await h.user("payee")
        let chains = try h.pay(2_500, from: wallet, to: payeeWallet).map(\.encoded)
        #expect(try await h.issuer.redeem(account: payee, chains: chains) == [.credited(amount: 2_500)])

        let float = try await Self.floatID(h.database)
        let (row, shards, count) = try await h.database.transaction { conn in
            (
                try await conn.queryOne("SELECT balance FROM account WHERE id = ?", float)?.int("balance"),
                try await conn.queryOne(
                    "SELECT CAST(SUM(balance) AS BIGINT) AS s FROM balance_shard WHERE account_id = ?", float)?.int("s"),
                try await conn.queryOne("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM balance_shard WHERE account_id = ?", float)?
                    .int("n")
            )
        }
        #expect(row == 0, "the purchase and the redemption went to shards, not to the float's row")
        #expect(shards == 3_500)
        #expect(count == 16)
        #expect(try await h.issuer.outstandingFloat() == 3_500)
        #expect(try await h.issuer.account(float).balance == 3_500)
        try await h.expectBooksBalance()

        try await h.database.transaction {
            try await $0.execute("UPDATE balance_shard SET balance = balance + 1 WHERE account_id = ? AND shard = 5", float)
        }
        var problems = try await h.issuer.checkLedger()
        #expect(problems.contains("account \(float) balance 3501 ≠ journal 3500"), "\(problems)")
        #expect(problems.contains("float 3501 ≠ unredeemed notes 3500"), "\(problems)")

        try await h.database.transaction {
            try await $0.execute("INSERT INTO balance_shard(account_id, shard, balance) VALUES (?, 0, 0)", payee)
        }
        problems = try await h.issuer.checkLedger()
        #expect(problems.contains("account \(payee) is not a system account but has balance shards"), "\(problems)")
    }

    /// A shard is bounded like any balance: a batch that would push it past Int64 is refused
    /// whole, and a sharded posting cannot ask to stay non-negative (only a user's single row can).
    @Test(arguments: Backend.available)
    func aShardRefusesToLeaveInt64(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let c = try await h.issuer.register(email: "c@ledger.test", password: "long enough password")
        let float = try await Self.floatID(h.database)
        func post(_ postings: [Ledger.Posting], deferred: Ledger.Deltas? = nil) async -> IssuerError? {
            await issuerError {
                try await h.database.transaction { conn in
                    try await Ledger.post(
                        conn, kind: "test", reference: nil, postings: postings, entry: [1], now: 0, deferred: deferred)
                    try await deferred?.apply(conn)
                }
            }
        }
        #expect(
            await post(
                [.init(account: float, amount: Int64.max, sharded: true), .init(account: c, amount: -Int64.max)],
                deferred: Ledger.Deltas(shard: 3)) == nil)
        #expect(
            await post(
                [.init(account: float, amount: 1, sharded: true), .init(account: c, amount: -1)],
                deferred: Ledger.Deltas(shard: 3)) == .amountOverflow)
        let nonNegative = await post([
            .init(account: float, amount: -1, mustStayNonNegative: true, sharded: true), .init(account: c, amount: 1),
        ])
        guard case .storage = nonNegative else {
            Issue.record("expected a storage error, got \(String(describing: nonNegative))")
            return
        }
        let (shard, balance) = try await h.database.transaction { conn in
            (
                try await conn.queryOne("SELECT balance FROM balance_shard WHERE account_id = ? AND shard = 3", float)?.int(
                    "balance"),
                try await conn.queryOne("SELECT balance FROM account WHERE id = ?", c)?.int("balance")
            )
        }
        #expect(shard == Int64.max)
        #expect(balance == -Int64.max)
    }

    /// Another transaction holds the float account's row (as every redemption batch and every
    /// purchase did before schema v8, until its COMMIT): a redemption and a purchase still go
    /// through, and no backend ever waits on the holder. PostgreSQL only: SQLite has one writer.
    @Test(.enabled(if: Backend.url != nil))
    func redemptionsAndPurchasesDoNotWaitOnTheFloatsRow() async throws {
        let h = try await IssuerHarness(.postgres)
        let (payer, wallet) = try await h.user("payer", funds: 10_000, purchase: 5_000)
        let (payee, payeeWallet) = try await h.user("payee")
        let chains = try h.pay(1_000, from: wallet, to: payeeWallet).map(\.encoded)
        let holder = try h.openAnother()
        let float = try await Self.floatID(holder)
        let issuer = h.issuer
        let walletKey = wallet.publicKey
        let finished = Flag()

        let (work, blocked) = try await holder.transaction { conn in
            try await conn.execute("UPDATE account SET balance = balance WHERE id = ?", float)
            let work = Task {
                defer { finished.state.withLock { $0 = true } }
                let redeemed = try await issuer.redeem(account: payee, chains: chains)
                let bought = try await issuer.purchase(
                    account: payer, walletKey: walletKey, amount: 500, idempotencyKey: UUID().uuidString)
                return (redeemed, bought.count)
            }
            var blocked: Int64 = 0
            while !finished.state.withLock({ $0 }) {
                blocked =
                    try await conn.queryOne(
                        "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))"
                    )?.int("n") ?? 0
                if blocked > 0 { break }  // committing below releases the row, so the work ends either way
                try await Task.sleep(for: .milliseconds(20))
            }
            return (work, blocked)
        }
        let (redeemed, bought) = try await work.value
        #expect(blocked == 0, "a redemption or purchase waited on the float account's row")
        #expect(redeemed == [.credited(amount: 1_000)])
        #expect(bought == 1)
        try await h.expectBooksBalance()
    }
}
