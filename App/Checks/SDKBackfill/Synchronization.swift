// Backfill: the Synchronization module, which Apple's SDKs ship from iOS 18.0 / macOS 15.0.
// scripts/check-app-sdk compiles this file into a module named Synchronization only when the
// given SDK is older than that; it is never built into the app. Declarations only: nothing
// here runs, so the bodies stop.
//
// Each declaration is the one Apple documents, with its availability, limited to what the
// package and App/ use:
//   https://developer.apple.com/documentation/synchronization/mutex
//   https://developer.apple.com/documentation/synchronization/atomic
// One difference: an SDK older than iOS 18 carries Swift 5.9's standard library, whose
// Optional cannot hold a noncopyable value, so `withLockIfAvailable` returns a copyable Result.

/// https://developer.apple.com/documentation/synchronization/mutex
@available(iOS 18.0, macOS 15.0, *)
@_staticExclusiveOnly
public struct Mutex<Value: ~Copyable>: ~Copyable {
    /// https://developer.apple.com/documentation/synchronization/mutex/init(_:)
    public init(_ initialValue: consuming sending Value) { fatalError("declaration only") }
}

@available(iOS 18.0, macOS 15.0, *)
extension Mutex: @unchecked Sendable where Value: ~Copyable {}

@available(iOS 18.0, macOS 15.0, *)
extension Mutex where Value: ~Copyable {
    /// https://developer.apple.com/documentation/synchronization/mutex/withlock(_:)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result { fatalError("declaration only") }

    /// https://developer.apple.com/documentation/synchronization/mutex/withlockifavailable(_:)
    public borrowing func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? { fatalError("declaration only") }
}

/// https://developer.apple.com/documentation/synchronization/atomicrepresentable
@available(iOS 18.0, macOS 15.0, *)
public protocol AtomicRepresentable {}

@available(iOS 18.0, macOS 15.0, *)
extension Int: AtomicRepresentable {}

/// https://developer.apple.com/documentation/synchronization/atomicupdateordering
@available(iOS 18.0, macOS 15.0, *)
public struct AtomicUpdateOrdering: Sendable {
    /// https://developer.apple.com/documentation/synchronization/atomicupdateordering/sequentiallyconsistent
    public static var sequentiallyConsistent: Self { fatalError("declaration only") }
}

/// https://developer.apple.com/documentation/synchronization/atomic
@available(iOS 18.0, macOS 15.0, *)
@_staticExclusiveOnly
public struct Atomic<Value: AtomicRepresentable>: ~Copyable {
    /// https://developer.apple.com/documentation/synchronization/atomic/init(_:)
    public init(_ initialValue: consuming Value) { fatalError("declaration only") }
}

@available(iOS 18.0, macOS 15.0, *)
extension Atomic: @unchecked Sendable where Value: Sendable {}

@available(iOS 18.0, macOS 15.0, *)
extension Atomic where Value == Int {
    /// https://developer.apple.com/documentation/synchronization/atomic/add(_:ordering:)
    @discardableResult
    public func add(_ operand: Int, ordering: AtomicUpdateOrdering) -> (oldValue: Int, newValue: Int) {
        fatalError("declaration only")
    }
}
