import IssuerTesting
import SQLStore
import Testing

/// The lookups that must stay index searches however many notes are live. With 10^6
/// notes prefilled (`wallet-load --report`) each purchase read every unswept note for the
/// account's outstanding total, and the expiry sweep would read the whole spent set per note.
/// Checked on the query plans, not on time: on PostgreSQL with sequential scans priced out, so
/// an empty table does not hide a missing index.
@Suite struct ScaleIndexTests {
    /// The plan's text, all rows and columns.
    static func plan(_ conn: any SQLConnection, _ query: String) async throws -> String {
        let explain = conn.dialect == .sqlite ? "EXPLAIN QUERY PLAN " : "EXPLAIN "
        return try await conn.query(explain + query).flatMap { row in
            row.values.compactMap { if case .text(let t) = $0 { t } else { nil } }
        }.joined(separator: "\n")
    }

    @Test(arguments: Backend.available)
    func anAccountsNotesAndANotesSpentStatesAreIndexSearches(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let blob = backend == .sqlite ? "x'00'" : "'\\x00'::bytea"
        let (account, spent) = try await h.database.transaction { conn in
            if conn.dialect == .postgres { try await conn.execute("SET LOCAL enable_seqscan = off") }
            // Issuer.loadAccount's outstanding notes; lastHolders' and losingBranchHolders' spent states.
            return (
                try await Self.plan(
                    conn,
                    "SELECT CAST(COALESCE(SUM(amount - redeemed), 0) AS BIGINT) AS v FROM issued_note WHERE account_id = 1 AND swept = 0"
                ),
                try await Self.plan(conn, "SELECT state_ref, kind, transfer FROM spent_state WHERE note_id = \(blob)")
            )
        }
        #expect(account.contains("issued_note_account"), "\(account)")
        #expect(spent.contains("spent_state_note"), "\(spent)")
    }

    /// The issuer's SQLite connection opens with a 64 MB page cache, not SQLite's own 2 MB, which
    /// is too small for a large spent set (docs/server.md, "What shapes the figures").
    @Test func sqliteRunsWithAPageCacheOf64MB() async throws {
        let scratch = try ScratchDatabase.sqlite(prefix: "cache-size")
        let store = try SQLiteStore(path: scratch.path + "/server.sqlite")
        let pages = try await store.transaction { try await $0.queryOne("PRAGMA cache_size")?.int("cache_size") }
        #expect(pages == -65_536)
        withExtendedLifetime(scratch) {}  // the directory goes when the scratch does
    }
}
