import Foundation
import OfflineNotes

/// Wall-clock time for the models ("updated x ago", request expiry, expiry warnings), injected
/// so tests control it.
public protocol AppClock: Sendable {
    /// Seconds since the Unix epoch.
    func now() -> Timestamp
}

/// The system clock.
public struct SystemClock: AppClock {
    public init() {}
    public func now() -> Timestamp {
        // Before 1970 only on a broken clock; the epoch is the safest floor.
        UInt64(max(0, Date().timeIntervalSince1970))
    }
}
