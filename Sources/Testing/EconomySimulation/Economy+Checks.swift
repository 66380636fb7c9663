import Foundation
import IssuerCore
import OfflineNotes
import SQLStore
import WalletCore

extension Economy {
    func checked(_ name: String, _ violations: [String]) {
        report.checks[name, default: 0] += 1
        for v in violations.prefix(20) { violation(v) }
    }

    /// Sum of user balances, the float, and the frozen accounts, read from the issuer's books.
    func books() async throws -> (users: Int64, float: Int64, frozen: [Int64], balances: [Int64: Int64]) {
        try await database.transaction { conn in
            var balances: [Int64: Int64] = [:]
            var frozen: [Int64] = []
            for row in try await conn.query("SELECT id, balance, frozen FROM account WHERE role <> 'system'") {
                let id = try row.int("id")
                balances[id] = try row.int("balance")
                if try row.int("frozen") != 0 { frozen.append(id) }
            }
            // The float is its account row plus its balance shards (schema v8; IssuerCore's Ledger).
            let float = try await conn.queryOne(
                "SELECT a.balance + COALESCE((SELECT CAST(SUM(s.balance) AS BIGINT) FROM balance_shard s WHERE s.account_id = a.id), 0) AS balance FROM account a WHERE a.email = ?",
                "system:float")?.int("balance")
            return (balances.values.reduce(0, +), float ?? 0, frozen.sorted(), balances)
        }
    }

    /// Fraud cases opened since the last look.
    func newCases() async throws -> [FraudCaseRow] {
        let after = lastCaseID
        let rows = try await database.transaction { conn in
            try await conn.query(
                "SELECT id, state_ref, cheater_key, cheater_account, status FROM fraud_case WHERE id > ? ORDER BY id", after)
        }
        let cases = try rows.map {
            FraudCaseRow(
                id: try $0.int("id"), state: try $0.blob("state_ref"), cheaterKey: try $0.blob("cheater_key"),
                cheaterAccount: try $0.optionalInt("cheater_account"), status: try $0.text("status"))
        }
        lastCaseID = cases.last?.id ?? lastCaseID
        seenCases += cases
        return cases
    }

    /// The checks run every simulated interval: conservation to the cent against the
    /// simulator's own count of money paid in, no honest account frozen or named, every
    /// double spend a payee caught offline on the books once it synced, and (every few
    /// intervals) the issuer's full book check.
    func checkContinuously() async throws {
        checksRun += 1
        let b = try await books()
        checked("conservation", InvariantChecker.conservation(userBalances: b.users, float: b.float, funded: funded))
        checked("no-honest-account-frozen", InvariantChecker.frozen(b.frozen, cheaters: cheaterAccounts))
        let cases = try await newCases()
        checked(
            "no-honest-wallet-named",
            InvariantChecker.attribution(
                cases, keyAccounts: keyAccounts, cheaters: cheaterAccounts, restorers: restorerAccounts))
        if checksRun % config.ledgerCheckEvery == 0 {
            checked("issuer-books-balance", try await issuer.checkLedger().map { "issuer books: \($0)" })
        }
    }

    /// The end of the run: every wallet comes online and syncs (twice, so proofs reported and
    /// conflicts opened by the first pass are settled), the clock passes every note's expiry and
    /// redemption grace, the issuer refunds what is left, and then every account must hold
    /// exactly what the simulator says it earned.
    func settleEverything() async throws {
        config.progress?("settling: every wallet syncs, then every note expires and is refunded")
        for m in members { m.dormant = false }
        for _ in 0..<2 {
            for m in members { try await sync(m) }
        }
        // Old devices of restored wallets announce what they still have pending.
        clock.advance(to: clock.now + config.noteLifetime + config.redemptionGrace + 3_600)
        try await sweepAllExpired()
        try await checkContinuously()
        checked("issuer-books-balance", try await issuer.checkLedger().map { "issuer books: \($0)" })
        let b = try await books()
        if b.float != 0 { violation("after every note expired and was swept, \(b.float) is still outstanding in notes") }
        checked("every-account-exact", InvariantChecker.accounts(balances: b.balances, tallies: tallies))
        var byState: [[UInt8]: [FraudCaseRow]] = [:]
        for c in seenCases { byState[c.state, default: []].append(c) }
        checked("every-double-spend-detected-and-attributed", InvariantChecker.detected(doubleSpends, cases: byState))
        for r in doubleSpends {
            let found = byState[r.state] ?? []
            let named = found.contains { $0.cheaterKey == r.signer && $0.cheaterAccount == r.account }
            cheat(r.kind.rawValue, detected: found.isEmpty ? 0 : 1, attributed: named ? 1 : 0)
        }
        let conflicts = seenCases.filter { $0.status == "restore_conflict" }.count
        count("restore-conflicts-on-the-books", conflicts)
        for m in members where m.role == .restorer {
            if b.frozen.contains(m.account) { violation("account \(m.account) restored once and was frozen") }
        }
        for m in members where m.role == .abuser && m.restores >= 2 {
            if !b.frozen.contains(m.account) {
                violation("account \(m.account) restored twice with conflicts and was not frozen")
            }
        }
        count("accounts-frozen", b.frozen.count)
    }
}
