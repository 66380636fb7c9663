import NearbySession
import Synchronization
import TestSupport

/// An in-memory radio for tests and measurements: a listener and a dialer joined by links with
/// a chosen MTU that can lose, reorder and cut frames, deterministically from a seed.
///
/// It implements the same `LinkConnection` protocols as the TCP and Bluetooth adapters, so
/// the session code under test is the code that ships.
public final class SimulatedNetwork: LinkDialer, LinkListener {
    public struct Conditions: Sendable {
        public var mtu: Int
        /// Probability that a frame is dropped.
        public var loss: Double
        /// Probability that a frame is held back and delivered after the next one.
        public var reorder: Double
        /// Cut link number `i` (0-based) after it has carried this many frames.
        public var cutAfterFrames: [Int: Int]

        public init(mtu: Int, loss: Double = 0, reorder: Double = 0, cutAfterFrames: [Int: Int] = [:]) {
            self.mtu = mtu
            self.loss = loss
            self.reorder = reorder
            self.cutAfterFrames = cutAfterFrames
        }
    }

    /// Bytes and frames written on every link so far, per direction (dialer → listener first).
    public struct Counters: Sendable, Equatable {
        public var dialerBytes = 0
        public var listenerBytes = 0
        public var dialerFrames = 0
        public var listenerFrames = 0
        public var dropped = 0
        public var links = 0
        /// Runs of frames in one direction: a request and its answer are two flights, so a
        /// session's round trips are `flights / 2` rounded up.
        public var flights = 0
        fileprivate var lastSide: SimulatedEnd.Side?
        public var total: Int { dialerBytes + listenerBytes }
    }

    private struct State {
        var rng: SplitMix64
        var counters = Counters()
        var acceptor: AsyncStream<any LinkConnection>.Continuation?
        var pendingAccepts: [any LinkConnection] = []
        var closed = false
    }

    public let conditions: Conditions
    private let state: Mutex<State>

    public init(_ conditions: Conditions, seed: UInt64 = 1) {
        self.conditions = conditions
        state = Mutex(State(rng: SplitMix64(seed: seed)))
    }

    public var counters: Counters { state.withLock { $0.counters } }

    public func connect() async throws -> any LinkConnection {
        let (dialerEnd, listenerEnd): (SimulatedEnd, SimulatedEnd) = try state.withLock { s in
            guard !s.closed else { throw SimulatedLinkError.refused }
            let index = s.counters.links
            s.counters.links += 1
            let link = Link(network: self, cutAfter: conditions.cutAfterFrames[index])
            return (SimulatedEnd(link: link, side: .dialer), SimulatedEnd(link: link, side: .listener))
        }
        state.withLock { s in
            if let acceptor = s.acceptor { acceptor.yield(listenerEnd) } else { s.pendingAccepts.append(listenerEnd) }
        }
        return dialerEnd
    }

    public func connections() -> AsyncStream<any LinkConnection> {
        let (stream, continuation) = AsyncStream.makeStream(of: (any LinkConnection).self)
        state.withLock { s in
            s.acceptor = continuation
            for pending in s.pendingAccepts { continuation.yield(pending) }
            s.pendingAccepts = []
            if s.closed { continuation.finish() }
        }
        return stream
    }

    public func close() {
        state.withLock { s in
            s.closed = true
            s.acceptor?.finish()
        }
    }

    /// Decides the fate of one frame: deliver, drop, or hold back.
    fileprivate func fate(bytes: Int, from side: SimulatedEnd.Side) -> (drop: Bool, hold: Bool) {
        state.withLock { s in
            if s.counters.lastSide != side {
                s.counters.flights += 1
                s.counters.lastSide = side
            }
            if side == .dialer {
                s.counters.dialerBytes += bytes
                s.counters.dialerFrames += 1
            } else {
                s.counters.listenerBytes += bytes
                s.counters.listenerFrames += 1
            }
            let drop = conditions.loss > 0 && s.rng.nextDouble() < conditions.loss
            if drop { s.counters.dropped += 1 }
            let hold = !drop && conditions.reorder > 0 && s.rng.nextDouble() < conditions.reorder
            return (drop, hold)
        }
    }
}

public enum SimulatedLinkError: Error, Sendable {
    case refused
    case linkCut
    case frameTooLarge(Int, mtu: Int)
}

/// The shared wire of one simulated link.
private final class Link: Sendable {
    struct State {
        var inboxes: [SimulatedEnd.Side: AsyncThrowingStream<[UInt8], any Error>.Continuation] = [:]
        var early: [SimulatedEnd.Side: [[UInt8]]] = [.dialer: [], .listener: []]
        var held: [SimulatedEnd.Side: [UInt8]] = [:]
        var frames = 0
        var cut = false
    }

    let network: SimulatedNetwork
    let cutAfter: Int?
    let state = Mutex(State())

    init(network: SimulatedNetwork, cutAfter: Int?) {
        self.network = network
        self.cutAfter = cutAfter
    }

    func send(_ frame: [UInt8], from side: SimulatedEnd.Side) throws {
        guard frame.count <= network.conditions.mtu else {
            throw SimulatedLinkError.frameTooLarge(frame.count, mtu: network.conditions.mtu)
        }
        let (drop, hold) = network.fate(bytes: frame.count, from: side)
        let peer: SimulatedEnd.Side = side == .dialer ? .listener : .dialer
        try state.withLock { s in
            guard !s.cut else { throw SimulatedLinkError.linkCut }
            s.frames += 1
            if let cutAfter, s.frames > cutAfter {
                cutLocked(&s)
                throw SimulatedLinkError.linkCut
            }
            if drop { return }
            if hold, s.held[peer] == nil {
                s.held[peer] = frame
                return
            }
            deliver(frame, to: peer, &s)
            if let late = s.held.removeValue(forKey: peer) { deliver(late, to: peer, &s) }
        }
    }

    private func deliver(_ frame: [UInt8], to side: SimulatedEnd.Side, _ s: inout State) {
        if let inbox = s.inboxes[side] { inbox.yield(frame) } else { s.early[side, default: []].append(frame) }
    }

    func inbound(for side: SimulatedEnd.Side) -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        state.withLock { s in
            s.inboxes[side] = continuation
            for frame in s.early[side] ?? [] { continuation.yield(frame) }
            s.early[side] = []
            if s.cut { continuation.finish(throwing: SimulatedLinkError.linkCut) }
        }
        return stream
    }

    func cut() { state.withLock { cutLocked(&$0) } }

    private func cutLocked(_ s: inout State) {
        s.cut = true
        for inbox in s.inboxes.values { inbox.finish(throwing: SimulatedLinkError.linkCut) }
    }
}

private final class SimulatedEnd: LinkConnection {
    enum Side: Hashable, Sendable { case dialer, listener }
    let link: Link
    let side: Side
    var mtu: Int { link.network.conditions.mtu }

    init(link: Link, side: Side) {
        self.link = link
        self.side = side
    }

    func send(_ frame: [UInt8]) async throws { try link.send(frame, from: side) }
    func inbound() -> AsyncThrowingStream<[UInt8], any Error> { link.inbound(for: side) }
    func close() { link.cut() }
}
