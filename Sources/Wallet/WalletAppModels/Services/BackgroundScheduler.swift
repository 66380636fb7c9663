/// Why the system would not take a background sync request.
public struct BackgroundScheduleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Background sync requests: the app's implementation submits a BGAppRefreshTask; the work it
/// runs is the flow layer's sync, so what runs in the background is what runs in the foreground.
public protocol BackgroundScheduler: Sendable {
    /// Asks the system to run a sync no earlier than `notBefore` (seconds since the epoch).
    /// Scheduling again replaces the pending request (one sync request at a time). Throws
    /// when the system refuses (background refresh turned off): the caller shows that sync
    /// happens only while the app is open.
    func scheduleSync(notBefore: UInt64) async throws(BackgroundScheduleError)
    /// Withdraws the pending request (logged out, wallet removed).
    func cancelSync() async
}
