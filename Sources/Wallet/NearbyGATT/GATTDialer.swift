import NearbySession

/// The payer's side (the central): opens links to the payee through the adapter.
///
/// `connect` does the radio work for one link: scan for the session service UUID (from the
/// request's Bluetooth hint, `GATTProfile.sessionService(in:)`) or use a peripheral picked
/// from the Nearby devices list, connect, discover the service and its `inbox` and `outbox`
/// characteristics, subscribe to `outbox`, and return a `GATTLink` over that connection.
/// The session calls it again after a drop, to resume on a new link.
public struct GATTDialer: LinkDialer {
    private let open: @Sendable () async throws -> GATTLink

    /// - Parameter connect: opens one link; throws a `GATTLinkError` saying what to do
    ///   (`.bluetoothOff`, `.unauthorized`, `.payeeNotFound`, `.serviceNotFound`, …).
    public init(connect: @escaping @Sendable () async throws -> GATTLink) {
        open = connect
    }

    public func connect() async throws -> any LinkConnection {
        try await open()
    }
}
