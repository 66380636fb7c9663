import SQLStore

@testable import IssuerCore

/// The issuer's books in full, for "bad input changes no state" checks (DESIGN §2.7): every
/// account (balance, outstanding notes, frozen), the journal's lines and their sum, the notes
/// issued and redeemed, every spent state, fraud case, idempotency record and wallet key.
/// Compare one taken before the bad input with one taken after.
struct Books: Equatable, Sendable {
    var accounts: [Account] = []
    /// Rows per table.
    var rows: [String: Int64] = [:]
    /// Sums of the money columns.
    var sums: [String: Int64] = [:]

    static let tables = [
        "journal", "issued_note", "spent_state", "fraud_case", "idempotency", "wallet_key", "restore_exchange", "audit_log",
    ]

    static func of(_ issuer: Issuer) async throws -> Books {
        try await issuer.transaction { conn in
            var books = Books()
            for row in try await conn.query("SELECT id FROM account ORDER BY id") {
                books.accounts.append(try await Issuer.loadAccount(conn, try row.int("id")))
            }
            for table in tables {
                books.rows[table] = try await conn.queryOne("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM \(table)")?.int("n") ?? 0
            }
            for (name, sql) in [
                ("journal.amount", "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS v FROM journal"),
                ("issued_note.amount", "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS v FROM issued_note"),
                ("issued_note.redeemed", "SELECT CAST(COALESCE(SUM(redeemed), 0) AS BIGINT) AS v FROM issued_note"),
            ] {
                books.sums[name] = try await conn.queryOne(sql)?.int("v") ?? 0
            }
            return books
        }
    }
}
