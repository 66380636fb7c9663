@testable import SQLStore
import Testing

/// `?` placeholders become `$1, $2, …` byte by byte (issue 13: the Character walk showed in the
/// load profile); text around them, non-ASCII included, is kept as it was.
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
