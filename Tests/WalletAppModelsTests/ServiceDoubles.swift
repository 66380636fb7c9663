import NearbySession
import OfflineNotes
import Synchronization
import TestSupport
import WalletAppModels

// Test doubles of the platform services: only these tests use them, and none is in the
// shipped module. The clock is the shared one (TestSupport.TestClock).

/// A biometric gate that answers from a script (true/false in turn; false when it runs out).
final class ScriptedBiometricGate: BiometricGate {
    private let state: Mutex<(answers: [Bool], reasons: [String])>
    init(_ answers: [Bool]) { state = Mutex((answers, [])) }
    var isAvailable: Bool { true }
    func authenticate(reason: String) async -> Bool {
        state.withLock { s in
            s.reasons.append(reason)
            return s.answers.isEmpty ? false : s.answers.removeFirst()
        }
    }
    var reasons: [String] { state.withLock { $0.reasons } }
}

/// Connectivity the test switches by hand; every subscriber gets the current state, then changes.
final class ManualConnectivity: ConnectivityMonitor {
    private let state: Mutex<(current: Connectivity, subscribers: [Int: AsyncStream<Connectivity>.Continuation], next: Int)>

    init(_ initial: Connectivity) { state = Mutex((initial, [:], 0)) }

    func updates() -> AsyncStream<Connectivity> {
        let (stream, continuation) = AsyncStream<Connectivity>.makeStream()
        let id = state.withLock { s in
            let id = s.next
            s.next += 1
            s.subscribers[id] = continuation
            continuation.yield(s.current)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Changes the state; the same state again is not a change and is not sent.
    func set(_ value: Connectivity) {
        state.withLock { s in
            guard s.current != value else { return }
            s.current = value
            for c in s.subscribers.values { c.yield(value) }
        }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// Records sync requests; refuses them when `refuse` is set (background refresh off).
final class RecordingScheduler: BackgroundScheduler {
    private let state = Mutex<(requests: [UInt64], pending: UInt64?, refuse: Bool)>(([], nil, false))
    func scheduleSync(notBefore: UInt64) async throws(BackgroundScheduleError) {
        try state.withLock { (s: inout (requests: [UInt64], pending: UInt64?, refuse: Bool)) throws(BackgroundScheduleError) in
            guard !s.refuse else { throw BackgroundScheduleError("Background refresh is off.") }
            s.requests.append(notBefore)
            s.pending = notBefore
        }
    }
    func cancelSync() async { state.withLock { $0.pending = nil } }
    func refuseRequests() { state.withLock { $0.refuse = true } }
    var pending: UInt64? { state.withLock { $0.pending } }
    var requests: [UInt64] { state.withLock { $0.requests } }
}

/// Keeps every alert posted.
final class RecordingNotifier: Notifier {
    private let alerts = Mutex<[WalletAlert]>([])
    func post(_ alert: WalletAlert) async { alerts.withLock { $0.append(alert) } }
    var posted: [WalletAlert] { alerts.withLock { $0 } }
}

/// The shared test clock (TestSupport) is the models' clock: `now()`, and `sleep(until:)` that
/// returns when the test advances it past the deadline (no real waiting).
extension TestSupport.TestClock: AppClock {}

/// The shared clock under the name every file of these tests uses (no import needed in each).
typealias TestClock = TestSupport.TestClock

/// Why a peer could not be dialed.
public struct NearbyPeerGone: Error, Sendable, CustomStringConvertible {
    public let address: String
    public var description: String { "The device \(address) is no longer nearby. Move closer and search again." }
}

/// A browser whose peers are announced by hand: a peer's address maps to a link
/// dialer (the simulated network, a TCP link). Peers persist until withdrawn; a failure ends
/// every discovery session running, like Bluetooth turning off.
final class InMemoryNearbyBrowser: NearbyBrowser {
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
