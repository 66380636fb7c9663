// Backfill: standard-library API of Swift 6.0, which Apple's SDKs carry from iOS 18.0 /
// macOS 15.0. scripts/check-app-sdk compiles this file into a module (SDKBackfillStdlib) and
// imports it implicitly into every module it checks, only when the given SDK is older than that;
// it is never built into the app. Declarations only: nothing here runs, so the bodies stop.
// Only what the package and App/ use; each with Apple's documentation page.

extension String {
    /// https://developer.apple.com/documentation/swift/string/init(validating:as:)
    @available(iOS 18.0, macOS 15.0, *)
    public init?<Encoding: Unicode.Encoding>(
        validating codeUnits: some Sequence<Encoding.CodeUnit>, as encoding: Encoding.Type
    ) { fatalError("declaration only") }
}

extension Result {
    /// https://developer.apple.com/documentation/swift/result/init(catching:)
    /// (typed throws: the closure's error type is the result's failure type)
    public init(catching body: () throws(Failure) -> Success) { fatalError("declaration only") }

    /// https://developer.apple.com/documentation/swift/result/get()
    /// (typed throws: throws `Failure`, not `any Error`)
    public func get() throws(Failure) -> Success { fatalError("declaration only") }
}

@available(iOS 18.0, macOS 15.0, *)
extension AsyncStream.Iterator {
    /// https://developer.apple.com/documentation/swift/asyncstream/iterator/next(isolation:)
    public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? { fatalError("declaration only") }
}

@available(iOS 18.0, macOS 15.0, *)
extension AsyncThrowingStream.Iterator {
    /// https://developer.apple.com/documentation/swift/asyncthrowingstream/iterator/next(isolation:)
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
        fatalError("declaration only")
    }
}
