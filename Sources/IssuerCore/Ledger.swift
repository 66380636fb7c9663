import OfflineNotes
import SQLStore

/// Double-entry postings. Every balance change is journal rows whose amounts sum to zero,
/// written in the caller's transaction together with the cached `account.balance`.
enum Ledger {
    struct Posting {
        let account: Int64
        let amount: Int64
        /// Refuse the entry (insufficientFunds) if this account would go below zero.
        var mustStayNonNegative = false
    }

    static func post(
        _ conn: any SQLConnection, kind: String, reference: [UInt8]?, postings: [Posting], entry: [UInt8], now: Int64
    ) async throws {
        guard postings.reduce(0, { $0 + $1.amount }) == 0 else { throw IssuerError.storage("unbalanced journal entry \(kind)") }
        for p in postings {
            if p.mustStayNonNegative && p.amount < 0 {
                let updated = try await conn.query(
                    "UPDATE account SET balance = balance + ? WHERE id = ? AND balance + ? >= 0 RETURNING balance",
                    p.amount, p.account, p.amount)
                if updated.isEmpty {
                    let row = try await conn.queryOne("SELECT balance FROM account WHERE id = ?", p.account)
                    throw IssuerError.insufficientFunds(balance: try row?.int("balance") ?? 0, requested: UInt64(-p.amount))
                }
            } else {
                try await conn.execute("UPDATE account SET balance = balance + ? WHERE id = ?", p.amount, p.account)
            }
            try await conn.execute(
                "INSERT INTO journal(entry, account_id, amount, kind, reference, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                entry, p.account, p.amount, kind, reference, now)
        }
    }

    static func systemAccount(_ conn: any SQLConnection, _ account: SystemAccount) async throws -> Int64 {
        guard let row = try await conn.queryOne("SELECT id FROM account WHERE email = ?", account.email) else {
            throw IssuerError.storage("system account \(account.rawValue) missing; migrations did not run")
        }
        return try row.int("id")
    }
}
