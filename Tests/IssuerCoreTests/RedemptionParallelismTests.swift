import SQLStore
import Testing

@testable import IssuerCore

/// `IssuerConfig.redemptionParallelism`'s default: one writer on SQLite; on PostgreSQL a second
/// batch in flight only where there are cores for it (docs/performance.md, "A batch's fixed cost").
@Suite struct RedemptionParallelismTests {
    @Test func oneTransactionInFlightUnlessPostgreSQLHasFourCores() {
        #expect([1, 2, 4, 64].map { Issuer.defaultRedemptionParallelism(.sqlite, cores: $0) } == [1, 1, 1, 1])
        #expect([1, 2, 3, 4, 8, 64].map { Issuer.defaultRedemptionParallelism(.postgres, cores: $0) } == [1, 1, 1, 2, 2, 2])
    }
}
