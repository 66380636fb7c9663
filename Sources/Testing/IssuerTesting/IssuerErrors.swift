import IssuerCore
import TestSupport
import Testing

/// The issuer error `body` throws, or nil if it returns; any other error is a test issue.
public func issuerError<T>(
    sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async -> IssuerError? {
    await caught(IssuerError.self, sourceLocation: sourceLocation, body)
}
