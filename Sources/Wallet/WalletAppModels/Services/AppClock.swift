import Foundation
import OfflineNotes

/// Wall-clock time for the models ("updated x ago", request expiry, expiry warnings, the
/// nearby search's timeout), injected so tests control it.
public protocol AppClock: Sendable {
    /// Seconds since the Unix epoch.
    func now() -> Timestamp
    /// Returns once `now()` has reached `deadline` (at once when it has). Throws
    /// `CancellationError` when the calling task is cancelled first. A test clock returns when
    /// the test advances it, so timeouts are tested without waiting.
    func sleep(until deadline: Timestamp) async throws
}

extension AppClock {
    /// Waits in real time, looking at `now()` at least every second, so a clock that is moved
    /// by other means than time passing (a test clock without its own `sleep`) is followed too.
    public func sleep(until deadline: Timestamp) async throws {
        while true {
            let current = now()
            guard current < deadline else { break }
            try await Task.sleep(for: .seconds(min(1, deadline - current)))
        }
        try Task.checkCancellation()
    }
}

/// The system clock.
public struct SystemClock: AppClock {
    public init() {}
    public func now() -> Timestamp {
        // Before 1970 only on a broken clock; the epoch is the safest floor.
        UInt64(max(0, Date().timeIntervalSince1970))
    }
}
