/// Whether the wallet can reach the network.
public enum Connectivity: Equatable, Sendable {
    case online
    case offline
}

/// Network reachability for the home screen's online/offline badge and for syncing when the
/// network comes back. The app's implementation wraps NWPathMonitor.
public protocol ConnectivityMonitor: Sendable {
    /// The current state first, then every change (no repeats of the same state), until the
    /// caller stops iterating. Each call is an independent subscription.
    func updates() -> AsyncStream<Connectivity>
}
