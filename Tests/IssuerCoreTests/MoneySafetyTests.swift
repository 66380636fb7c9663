import Foundation
import IssuerTesting
import OfflineNotes
import SQLStore
import Testing

@testable import IssuerCore

/// No balance leaves Int64, no non-integer reaches a money column, and no value
/// read from the database can trap the server. Amounts in messages are money.
@Suite struct MoneySafetyTests {
    /// Funding Int64.max and then 1 is refused, and the server lives (SQLite would make the sum a REAL).
    @Test(arguments: Backend.available)
    func fundingPastTheLargestBalanceIsRefused(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (rich, wallet) = try await h.user("rich", funds: Amount.max)
        #expect(await issuerError { try await h.issuer.fund(account: rich, amount: 1) } == .amountOverflow)
        #expect(try await h.balance(rich) == Int64.max)
        // The funding account now stands at -Int64.max: one more unit fits (Int64.min), two do not.
        let (payer, _) = try await h.user("payer", funds: 1)
        #expect(await issuerError { try await h.issuer.fund(account: payer, amount: 1) } == .amountOverflow)
        // Paying the full account online is refused the same way; the sender keeps the money.
        let richEmail = try await h.issuer.account(rich).email
        #expect(
            await issuerError {
                try await h.issuer.send(from: payer, toEmail: richEmail, amount: 1, idempotencyKey: "send-overflow")
            } == .amountOverflow)
        #expect(try await h.balance(payer) == 1)
        #expect(try await h.balance(rich) == Int64.max)
        // Still usable: the rich account buys notes, logs in, and the books balance.
        _ = try await h.issuer.purchase(
            account: rich, walletKey: wallet.publicKey, amount: 1_000, idempotencyKey: "buy-after-overflow")
        #expect(try await h.balance(rich) == Int64.max - 1_000)
        #expect(try await h.issuer.login(email: richEmail, password: "correct horse battery").balance == Int64.max - 1_000)
        try await h.expectBooksBalance()
    }

    /// Redemption applies balances at the end of a batch (`Ledger.Deltas`): an overflow there
    /// refuses the batch and writes nothing, so the same chain is credited once there is room.
    @Test(arguments: Backend.available)
    func aRedemptionThatWouldOverflowWritesNothing(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        // Dev funding cannot get Bob there (the funding account would pass Int64.min first),
        // but debts can: a balanced entry from an account in debt, as fraud recovery makes.
        let debtor = try await h.issuer.register(email: "debtor@example.com", password: "long enough password")
        try await h.database.transaction { conn in
            try await Ledger.post(
                conn, kind: "test", reference: nil,
                postings: [.init(account: debtor, amount: -(Int64.max - 1_000)), .init(account: bob, amount: Int64.max - 1_000)],
                entry: [9], now: 0)
        }
        let chain = try h.pay(3_000, from: alice, to: bobWallet)[0].encoded
        #expect(await issuerError { try await h.issuer.redeem(account: bob, chains: [chain]) } == .amountOverflow)
        #expect(try await h.balance(bob) == Int64.max - 1_000)
        #expect(try await h.issuer.outstandingFloat() == 10_000)
        _ = try await h.issuer.purchase(account: bob, walletKey: bobWallet.publicKey, amount: 5_000, idempotencyKey: "make-room")
        #expect(try await h.issuer.redeem(account: bob, chains: [chain]) == [.credited(amount: 3_000)])
        try await h.expectBooksBalance()
    }

    /// Postings the ledger must refuse before touching the database.
    @Test(arguments: Backend.available)
    func ledgerRefusesUnrepresentablePostings(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let a = try await h.issuer.register(email: "a@ledger.test", password: "long enough password")
        let b = try await h.issuer.register(email: "b@ledger.test", password: "long enough password")
        func post(_ postings: [Ledger.Posting], deferred: Ledger.Deltas? = nil, apply: Bool = true) async -> IssuerError? {
            await issuerError {
                try await h.database.transaction { conn in
                    try await Ledger.post(
                        conn, kind: "test", reference: nil, postings: postings, entry: [1], now: 0, deferred: deferred)
                    if apply { try await deferred?.apply(conn) }
                }
            }
        }
        #expect(await post([.init(account: a, amount: Int64.min), .init(account: b, amount: 0)]) == .amountOverflow)
        // The sum of the postings itself overflows.
        #expect(
            await post([
                .init(account: a, amount: Int64.max), .init(account: b, amount: Int64.max), .init(account: a, amount: -1),
            ]) == .amountOverflow)
        // Two postings to one account collected in one batch, each fine alone.
        let collected = Ledger.Deltas(shard: 0)
        #expect(
            await post(
                [.init(account: a, amount: Int64.max), .init(account: b, amount: -Int64.max)], deferred: collected, apply: false)
                == nil)
        #expect(
            await post([.init(account: a, amount: 1), .init(account: b, amount: -1)], deferred: collected, apply: false)
                == .amountOverflow)
        // A batch whose sum fits, applied to a balance it would push past Int64.max.
        #expect(
            await post(
                [.init(account: a, amount: Int64.max), .init(account: b, amount: -Int64.max)], deferred: Ledger.Deltas(shard: 0))
                == nil)
        #expect(
            await post([.init(account: a, amount: 1), .init(account: b, amount: -1)], deferred: Ledger.Deltas(shard: 0))
                == .amountOverflow)
        // And written at once (not deferred).
        #expect(await post([.init(account: a, amount: 1), .init(account: b, amount: -1)]) == .amountOverflow)
        #expect(try await h.balance(a) == Int64.max)
        #expect(try await h.balance(b) == -Int64.max)
        try await h.expectBooksBalance()
    }

    /// The schema refuses what the ledger would never write: non-integers (SQLite, where an
    /// overflowing `balance + 1` becomes a REAL) and out-of-range sums (PostgreSQL).
    @Test(arguments: Backend.available)
    func moneyColumnsHoldOnlyIntegers(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (ann, _) = try await h.user("ann", funds: Amount.max, purchase: 1_000)
        func refused(_ sql: String, _ binds: any SQLBindable...) async -> Bool {
            do {
                try await h.database.transaction { try await $0.execute(sql, binds) }
                return false
            } catch {
                return true
            }
        }
        // Ann holds Int64.max - 1000 after her purchase.
        #expect(await refused("UPDATE account SET balance = balance + 1001 WHERE id = ?", ann))
        #expect(await refused("UPDATE issued_note SET redeemed = -1"))
        if backend == .sqlite {
            #expect(await refused("UPDATE account SET balance = 0.5 WHERE id = ?", ann))
            #expect(
                await refused(
                    "INSERT INTO journal(entry, account_id, amount, kind, created_at) VALUES (x'01', ?, 1.5, 'test', 0)", ann))
            #expect(await refused("UPDATE issued_note SET amount = 12.25"))
            #expect(
                await refused(
                    "INSERT INTO spent_state(state_ref, spender, kind, chain, note_id, amount, created_at) VALUES (x'01', x'01', 'redeem', x'01', x'01', 1e300, 0)"
                ))
            #expect(
                await refused(
                    "INSERT INTO fraud_case(state_ref, second_spender, note_id, cheater_key, first_kind, chain, amount, created_at) VALUES (x'01', x'01', x'01', x'01', 'transfer', x'01', 0.1, 0)"
                ))
            // The same rows with integer amounts are accepted: the refusals above are the type.
            #expect(
                await !refused(
                    "INSERT INTO spent_state(state_ref, spender, kind, chain, note_id, amount, created_at) VALUES (x'01', x'01', 'redeem', x'01', x'01', 1, 0)"
                ))
            #expect(
                await !refused(
                    "INSERT INTO fraud_case(state_ref, second_spender, note_id, cheater_key, first_kind, chain, amount, created_at) VALUES (x'01', x'01', x'01', x'01', 'transfer', x'01', 1, 0)"
                ))
            // A REAL beyond Int64's range (what an overflowing sum becomes).
            #expect(await refused("UPDATE account SET balance = 9223372036854775807.0 * 2 WHERE id = ?", ann))
        }
        #expect(try await h.balance(ann) == Int64.max - 1_000)
        try await h.expectBooksBalance()
    }

    /// A database written by the old version holds a REAL balance: reading it is a typed
    /// error (503 over HTTP), not a crash, and the rest of the issuer keeps working.
    @Test func aRealAlreadyInTheDatabaseIsATypedError() async throws {
        let h = try await IssuerHarness(.sqlite)
        let damaged = try await h.issuer.register(email: "damaged@example.com", password: "long enough password")
        let (other, _) = try await h.user("other", funds: 100)
        try await h.database.transaction { conn in
            try await conn.execute("DROP TRIGGER account_money_update")  // what the old schema allowed
            try await conn.execute("UPDATE account SET balance = 9223372036854775807 WHERE id = ?", damaged)
            try await conn.execute("UPDATE account SET balance = balance + 1 WHERE id = ?", damaged)
        }
        let error = await issuerError { try await h.issuer.login(email: "damaged@example.com", password: "long enough password") }
        guard case .storage(let message) = error else {
            Issue.record("expected a storage error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("balance") && message.contains("non-integer"))
        #expect(try await h.balance(other) == 100)
    }

    /// Refusals show money in the issuer's currency; codes are unchanged.
    @Test func messagesShowAmountsAsMoney() throws {
        let eur = try #require(Currency("EUR"))
        let jpy = try #require(Currency("JPY"))
        let short = IssuerError.insufficientFunds(balance: 250, requested: 6_000, currency: eur)
        #expect(short.description == "Balance 2.50 EUR is below the 60.00 EUR requested. Fund the account first.")
        #expect(short.code == "insufficient_funds")
        #expect(
            IssuerError.insufficientFunds(balance: -3_005, requested: 1, currency: eur).description.hasPrefix(
                "Balance -30.05 EUR is below the 0.01 EUR"))
        #expect(
            IssuerError.insufficientFunds(balance: 5, requested: 600, currency: jpy).description.hasPrefix(
                "Balance 5 JPY is below the 600 JPY"))
        let limit = IssuerError.holdingLimitExceeded(limit: 50_000, outstanding: 45_000, requested: 10_000, currency: eur)
        #expect(
            limit.description
                == "Buying 100.00 EUR would bring offline notes to 550.00 EUR, above the limit 500.00 EUR. Redeem or spend notes first."
        )
        #expect(limit.code == "holding_limit_exceeded")
        #expect(
            IssuerError.holdingLimitExceeded(limit: 1, outstanding: UInt64.max, requested: UInt64.max, currency: eur).description
                .contains("more than"))
        #expect(IssuerError.amountOverflow.code == "amount_overflow")
    }

    /// The issuer's own refusals carry its currency.
    @Test func theIssuerReportsShortfallsInItsCurrency() async throws {
        let h = try await IssuerHarness(.sqlite)
        let (ann, wallet) = try await h.user("ann", funds: 250)
        let error = await issuerError {
            try await h.issuer.purchase(account: ann, walletKey: wallet.publicKey, amount: 6_000, idempotencyKey: "too-much-01")
        }
        #expect(error?.description == "Balance 2.50 EUR is below the 60.00 EUR requested. Fund the account first.")
    }
}
