import NearbySession
import Synchronization

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
}

/// Why a peer could not be dialed.
public struct NearbyPeerGone: Error, Sendable, CustomStringConvertible {
    public let address: String
    public var description: String { "The device \(address) is no longer nearby. Move closer and search again." }
}

/// A browser whose peers are announced by hand: in tests, a peer's address maps to a link
/// dialer (the simulated network, a TCP link). Peers persist until withdrawn; a failure ends
/// every discovery session running, like Bluetooth turning off.
public final class InMemoryNearbyBrowser: NearbyBrowser {
    private struct State {
        var peers: [String: (peer: NearbyPeer, dialer: any LinkDialer)] = [:]
        var order: [String] = []
        var sessions: [Int: AsyncStream<NearbyBrowserEvent>.Continuation] = [:]
        var next = 0
        var started = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func discover() -> AsyncStream<NearbyBrowserEvent> {
        let (stream, continuation) = AsyncStream<NearbyBrowserEvent>.makeStream()
        let id = state.withLock { s in
            let id = s.next
            s.next += 1
            s.started += 1
            s.sessions[id] = continuation
            for address in s.order { if let known = s.peers[address] { continuation.yield(.found(known.peer)) } }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.sessions.removeValue(forKey: id) }
        }
        return stream
    }

    public func dialer(for peer: NearbyPeer) -> any LinkDialer {
        state.withLock { $0.peers[peer.address]?.dialer } ?? GoneDialer(address: peer.address)
    }

    /// A peer comes into range (or changes what it advertises), reachable through `dialer`.
    public func announce(_ peer: NearbyPeer, dialer: any LinkDialer) {
        state.withLock { s in
            if s.peers[peer.address] == nil { s.order.append(peer.address) }
            s.peers[peer.address] = (peer, dialer)
            for c in s.sessions.values { c.yield(.found(peer)) }
        }
    }

    /// The peer at `address` leaves.
    public func withdraw(_ address: String) {
        state.withLock { s in
            guard s.peers.removeValue(forKey: address) != nil else { return }
            s.order.removeAll { $0 == address }
            for c in s.sessions.values { c.yield(.lost(address: address)) }
        }
    }

    /// Discovery fails (Bluetooth off): every running session gets `message` and ends.
    public func fail(_ message: String) {
        let ended = state.withLock { s in
            let all = Array(s.sessions.values)
            s.sessions = [:]
            return all
        }
        for c in ended {
            c.yield(.failed(message))
            c.finish()
        }
    }

    /// Discovery sessions running now (0 once every caller stopped).
    public var activeDiscoveries: Int { state.withLock { $0.sessions.count } }
    /// Discovery sessions started so far.
    public var discoveriesStarted: Int { state.withLock { $0.started } }

    private struct GoneDialer: LinkDialer {
        let address: String
        func connect() async throws -> any LinkConnection { throw NearbyPeerGone(address: address) }
    }
}
