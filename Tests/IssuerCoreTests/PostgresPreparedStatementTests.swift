import Foundation
import IssuerTesting
import PostgresNIO
import Synchronization
import Testing

@testable import SQLStore

/// Parsing and planning every statement anew would be half of PostgreSQL's cost per redemption
/// batch: a connection prepares a statement the second time it runs it and reuses it after.
/// These tests watch the server's own list (`pg_prepared_statements`, per connection: the stores
/// here have one) and check that the prepared path answers exactly as the unnamed one did.
@Suite(.enabled(if: Backend.url != nil)) struct PostgresPreparedStatementTests {
    /// A store with one connection in a scratch schema, so every transaction shares its statements.
    static func oneConnection() async throws -> (PostgresStore, ScratchDatabase) {
        let scratch = try await ScratchDatabase.postgres(url: try #require(Backend.url), prefix: "prep")
        return (try scratch.store(maxConnections: 1), scratch)
    }

    /// How many statements the connection holds prepared whose text contains `marker`. Its own
    /// text is the same every time and contains no marker, so it never counts itself.
    static func prepared(_ marker: String, on conn: any SQLConnection) async throws -> Int64 {
        try #require(
            try await conn.queryOne(
                "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM pg_prepared_statements WHERE statement LIKE ?", "%\(marker)%")
        ).int("n")
    }

    @Test func aStatementIsPreparedOnItsSecondRunAndReusedAfter() async throws {
        let (store, scratch) = try await Self.oneConnection()
        defer { _ = scratch }
        let counts = try await store.transaction { conn in
            var counts: [Int64] = []
            for i in 1...5 {
                let row = try await conn.queryOne("SELECT CAST(? AS BIGINT) + 1 AS x -- second-run", Int64(i))
                #expect(try row?.int("x") == Int64(i) + 1)
                counts.append(try await Self.prepared("second-run", on: conn))
            }
            try await conn.execute("SELECT 1 AS y -- run-once")
            counts.append(try await Self.prepared("run-once", on: conn))
            return counts
        }
        #expect(counts == [0, 1, 1, 1, 1, 0])
        // A later transaction on the same connection finds it still prepared, and uses it.
        let later = try await store.transaction { conn in
            #expect(try await conn.queryOne("SELECT CAST(? AS BIGINT) + 1 AS x -- second-run", Int64(41))?.int("x") == 42)
            return try await Self.prepared("second-run", on: conn)
        }
        #expect(later == 1)
        await store.close()
    }

    /// One text bound with values of different types is a different statement for each (a
    /// parameter prepared as a number cannot take text), and every value reads back as bound,
    /// arrays and NULL included.
    @Test func everyTypeOfValueRoundTripsThroughThePreparedPath() async throws {
        let (store, scratch) = try await Self.oneConnection()
        defer { _ = scratch }
        let values: [SQLValue] = [.integer(-7), .integer(Int64.max), .text("é€ text"), .text(""), .blob([0, 1, 255]), .blob([])]
        try await store.transaction { conn in
            for value in values {
                for _ in 1...3 {
                    #expect(try await conn.queryOne("SELECT ? AS v -- typed", value)?["v"] == value, "\(value)")
                }
            }
            // One statement per type: number, text and blob.
            #expect(try await Self.prepared("typed", on: conn) == 3)
            for value in [SQLValue.null, .integer(3), .null] {
                for _ in 1...3 {
                    #expect(
                        try await conn.queryOne("SELECT CAST(? AS BIGINT) AS v -- nullable", value)?["v"] == value, "\(value)")
                }
            }
            // NULL leaves the parameter's type to the server: a statement of its own.
            #expect(try await Self.prepared("nullable", on: conn) == 2)
            for _ in 1...3 {
                let row = try #require(
                    try await conn.queryOne(
                        """
                        SELECT CAST(COUNT(*) AS BIGINT) AS n, CAST(SUM(i) AS BIGINT) AS total, MAX(t) AS last,
                            string_agg(b, ''::bytea ORDER BY i) AS joined -- arrays
                        FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS BYTEA[])) AS u(i, t, b)
                        """, SQLValue.integers([1, 2, 39]), SQLValue.texts(["a", "c", "b"]), SQLValue.blobs([[1], [9, 9], []])))
                #expect(try row.int("n") == 3)
                #expect(try row.int("total") == 42)
                #expect(try row.text("last") == "c")
                #expect(try row.blob("joined") == [1, 9, 9])
            }
            #expect(try await Self.prepared("arrays", on: conn) == 1)
        }
        await store.close()
    }

    /// A connection keeps at most `StatementCache.capacity` statements: the least recently used
    /// is closed on the server to make room, so a stream of distinct texts cannot grow it.
    @Test func aConnectionKeepsABoundedNumberOfStatements() async throws {
        let (store, scratch) = try await Self.oneConnection()
        defer { _ = scratch }
        let extra = 6
        let held = try await store.transaction { conn in
            for i in 0..<(StatementCache.capacity + extra) {
                for _ in 1...2 { try await conn.execute("SELECT \(i) AS n -- bounded") }
            }
            // Statement 1 was closed to make room; run twice again, it is prepared again and
            // closes the oldest one left, 6.
            for _ in 1...2 { try await conn.execute("SELECT 1 AS n -- bounded") }
            return try await conn.query("SELECT statement FROM pg_prepared_statements WHERE statement LIKE ?", "%-- bounded")
                .map { try $0.text("statement") }
        }
        #expect(held.count == StatementCache.capacity)
        // 0 to 5 made room for 64 to 69, and 6 for 1 prepared again.
        let numbers = held.compactMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
        #expect(Set(numbers) == Set([1] + Array(7..<(StatementCache.capacity + extra))))
        await store.close()
    }

    /// A table altered under a prepared `SELECT *` changes its result's shape, which the server
    /// refuses to hide ("cached plan must not change result type"). The store forgets its
    /// statements and runs the transaction again, which then reads the new column.
    @Test func aStatementMadeStaleByATableChangeIsPreparedAgain() async throws {
        let (store, scratch) = try await Self.oneConnection()
        defer { _ = scratch }
        try await store.transaction { conn in
            try await conn.execute("CREATE TABLE shape (a BIGINT)")
            try await conn.execute("INSERT INTO shape (a) VALUES (5)")
        }
        for _ in 1...2 {
            let row = try await store.transaction { try await $0.queryOne("SELECT * FROM shape WHERE a = ?", Int64(5)) }
            #expect(row?.columns == ["a"])
        }
        try await store.transaction { try await $0.execute("ALTER TABLE shape ADD COLUMN b BIGINT DEFAULT 7") }
        let row = try await store.transaction { try await $0.queryOne("SELECT * FROM shape WHERE a = ?", Int64(5)) }
        #expect(row?.columns == ["a", "b"])
        #expect(try row?.int("b") == 7)
        #expect(store.conflictRetries == 1)
        await store.close()
    }

    /// Refusals on the prepared path are the same typed errors as on the unnamed one
    /// (postgres-nio reports them as another type there).
    @Test func aUniqueViolationOnThePreparedPathIsStillOne() async throws {
        let (store, scratch) = try await Self.oneConnection()
        defer { _ = scratch }
        try await store.transaction { try await $0.execute("CREATE TABLE once (k BIGINT PRIMARY KEY)") }
        try await store.transaction { try await $0.execute("INSERT INTO once (k) VALUES (?)", Int64(1)) }
        for _ in 1...2 {  // the second sighting prepares it, the third reuses it
            await #expect {
                try await store.transaction { try await $0.execute("INSERT INTO once (k) VALUES (?)", Int64(1)) }
            } throws: { error in
                if case SQLError.uniqueViolation = error { true } else { false }
            }
        }
        let prepared = try await store.transaction { try await Self.prepared("INSERT INTO once", on: $0) }
        #expect(prepared == 1)
        await store.close()
    }

    /// A prepared statement sent on a connection the server has just ended is a lost connection,
    /// as on the unnamed path: the transaction runs again on a new one and completes.
    @Test func aPreparedStatementOnACutConnectionRerunsTheTransaction() async throws {
        let (store, scratch) = try await Self.oneConnection()
        defer { _ = scratch }
        let side = try scratch.store(maxConnections: 1)
        let attempts = Atomic<Int>(0)
        let value = try await store.transaction { conn in
            let attempt = attempts.add(1, ordering: .relaxed).newValue
            for _ in 1...2 { _ = try await conn.queryOne("SELECT CAST(? AS BIGINT) AS x -- cut", Int64(1)) }
            if attempt == 1 {
                let pid = try #require(try await conn.queryOne("SELECT CAST(pg_backend_pid() AS BIGINT) AS pid")).int("pid")
                // Waits (up to 5 s) until the backend has gone.
                try await side.transaction {
                    _ = try await $0.query("SELECT pg_terminate_backend(CAST(? AS INTEGER), 5000)", pid)
                }
            }
            return try #require(try await conn.queryOne("SELECT CAST(? AS BIGINT) AS x -- cut", Int64(attempt))).int("x")
        }
        #expect(attempts.load(ordering: .relaxed) == 2)
        #expect(value == 2)
        await side.close()
        await store.close()
    }
}
