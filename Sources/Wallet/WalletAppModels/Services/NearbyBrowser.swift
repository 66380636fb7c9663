import NearbySession
import OfflineNotes

/// A payee's phone found nearby: the name and key id it advertises, and an address only the
/// nearby transport understands (a Bluetooth LE peripheral in the app; a simulated or TCP
/// link here). The key id is text as advertised, checked with the command line's rule
/// (`NearbyPayFlow.payee(_:matchesText:)`): the advertisement is not trusted until it matches.
public struct NearbyPeer: Hashable, Sendable, Identifiable {
    /// Opaque to the models: the transport's handle for dialing this peer.
    public let address: String
    /// The name the payee's phone advertises ("Bob's iPhone"); may be empty.
    public let name: String
    /// The key id the payee's screen shows (short hex, as `wallet receive` prints `key …`).
    public let keyID: String

    public init(address: String, name: String, keyID: String) {
        self.address = address
        self.name = name
        self.keyID = keyID
    }

    public var id: String { address }
}

/// What discovery reports.
public enum NearbyBrowserEvent: Equatable, Sendable {
    /// A peer appeared, or one already known changed its name or key id.
    case found(NearbyPeer)
    /// The peer at this address went away.
    case lost(address: String)
    /// Discovery stopped (Bluetooth off, permission refused); the message says what to do.
    case failed(String)
}

/// Discovery of nearby payees. The app's implementation scans for the wallet's Bluetooth LE
/// service; `InMemoryNearbyBrowser` is the Linux one, scripted by tests.
public protocol NearbyBrowser: Sendable {
    /// Starts discovery: the peers already known, then every change, until the caller stops
    /// iterating (which stops discovery). Each call is an independent discovery session.
    func discover() -> AsyncStream<NearbyBrowserEvent>
    /// Opens links to `peer` for the nearby payment session.
    func dialer(for peer: NearbyPeer) -> any LinkDialer
    /// Opens links to the payee a scanned request names in a transport hint this browser
    /// understands (the app: the Bluetooth LE session service of §12.8, found by scanning);
    /// nil when it names none. Send pays through it unless a device was picked.
    func dialer(for request: PaymentRequest) -> (any LinkDialer)?
}

extension NearbyBrowser {
    /// A browser that only lists devices cannot reach a payee from its request.
    public func dialer(for request: PaymentRequest) -> (any LinkDialer)? { nil }
}
