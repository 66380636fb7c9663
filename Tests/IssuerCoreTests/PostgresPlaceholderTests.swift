import Testing

@testable import SQLStore

/// `?` placeholders become `$1, $2, …` byte by byte (a walk over Characters showed
/// in the load profile); text around them, non-ASCII included, is kept as it was.
@Suite struct PostgresPlaceholderTests {
    @Test func numbersPlaceholdersInOrderAndKeepsTheRest() {
        #expect(PostgresStore.Connection.numberPlaceholders("SELECT 1") == "SELECT 1")
        #expect(PostgresStore.Connection.numberPlaceholders("") == "")
        #expect(
            PostgresStore.Connection.numberPlaceholders("INSERT INTO t(a, b) VALUES (?, ?), (?, 'é€'), (?, ?)")
                == "INSERT INTO t(a, b) VALUES ($1, $2), ($3, 'é€'), ($4, $5)")
        let many = Array(repeating: "?", count: 1_280).joined(separator: ", ")
        let numbered = PostgresStore.Connection.numberPlaceholders("IN (\(many))")
        #expect(numbered == "IN (" + (1...1_280).map { "$\($0)" }.joined(separator: ", ") + ")")
    }
}

/// A prepared statement's text types each parameter as the unnamed path declares it, and the
/// statement is kept under its text and its values' types.
@Suite struct PostgresPreparedTextTests {
    @Test func placeholdersCarryTheirValuesCastsAndNullNone() {
        let values: [SQLValue] = [.integer(1), .text("a"), .blob([1]), .null, .blobs([[1]]), .integers([1]), .texts(["a"])]
        #expect(
            PostgresStore.Connection.numberPlaceholders("f(?, ?, ?, ?, CAST(? AS BYTEA[]), ?, ?)", typedAs: values)
                == "f($1::int8, $2::text, $3::bytea, $4, CAST($5::bytea[] AS BYTEA[]), $6::int8[], $7::text[])")
    }

    @Test func aStatementIsKeptUnderItsTextAndItsValuesTypes() {
        let key = PostgresStore.Connection.key
        #expect(key("SELECT ?", [.integer(1)]) == key("SELECT ?", [.integer(2)]))
        #expect(key("SELECT ?", [.integer(1)]) != key("SELECT ?", [.text("1")]))
        #expect(key("SELECT ?", [.integer(1)]) != key("SELECT ?", [.null]))
        #expect(key("SELECT ?", [.blob([])]) != key("SELECT ?", [.blobs([])]))
        #expect(key("SELECT 1", []) != key("SELECT 2", []))
    }

    /// A first sighting runs unnamed and a second prepares; forgetting starts the count again.
    /// (The bound on what is kept needs a server: `PostgresPreparedStatementTests`.)
    @Test func aSecondSightingPrepares() {
        let cache = StatementCache()
        #expect(cache.use("a").isUnnamed)
        #expect(cache.use("b").isUnnamed)
        #expect(cache.use("a").isPrepare)
        #expect(cache.count == 0)
        #expect(cache.use("c").isUnnamed)
        #expect(cache.use("c").isPrepare)
        #expect(cache.use("b").isPrepare)
        cache.forgetAll()
        #expect(cache.use("a").isUnnamed)
    }
}

extension StatementCache.Use {
    var isUnnamed: Bool { if case .unnamed = self { true } else { false } }
    var isPrepare: Bool { if case .prepare = self { true } else { false } }
}
