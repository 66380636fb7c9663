import Testing

/// The error of type `E` that `body` throws, or nil if it returns. Any other error is recorded
/// as a test issue (a test that expects one specific failure must not pass on another).
public func caught<E: Error, T>(
    _ expected: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> E? {
    do {
        _ = try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// `caught` for async bodies.
public func caught<E: Error, T>(
    _ expected: E.Type, sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
) async -> E? {
    do {
        _ = try await body()
        return nil
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
