import Synchronization

/// A settable clock (seconds since the epoch) shared by the wallets, issuers and models of one
/// test: `now` reads and sets it, `advance` moves it on. Thread-safe.
public final class TestClock: Sendable {
    private let time: Mutex<UInt64>

    public init(_ start: UInt64) { time = Mutex(start) }

    public var now: UInt64 {
        get { time.withLock { $0 } }
        set { time.withLock { $0 = newValue } }
    }

    /// Moves the clock `seconds` forward.
    public func advance(_ seconds: UInt64) { time.withLock { $0 += seconds } }
}
