import NearbySession
import OfflineNotes

/// Where one receive is served nearby: the transport hints its request carries and the
/// listener payers reach through them.
public struct NearbyEndpoint: Sendable {
    /// The request's hints (the app: one Bluetooth LE hint with a fresh session service UUID).
    public let hints: [TransportHint]
    /// Serves the request; closing it stops advertising.
    public let listener: any LinkListener

    public init(hints: [TransportHint], listener: any LinkListener) {
        self.hints = hints
        self.listener = listener
    }
}

/// The payee's side of nearby payments: makes the endpoint each new request is served on. The
/// app's implementation advertises a fresh Bluetooth LE session service per request
/// (docs/protocol.md §12.8), under a local name with the payee's key id and display name, for
/// as long as the listener is open; tests use an in-memory one.
public protocol NearbyAdvertiser: Sendable {
    /// A fresh endpoint for one request of the wallet whose key id is `keyID` (hex), shown to
    /// payers nearby as `payeeName`. Throws when the transport is unavailable (Bluetooth off,
    /// permission refused); the error's description says what to do, and the request is then
    /// made for QR only.
    func prepareReceive(keyID: String, payeeName: String) throws -> NearbyEndpoint
}
