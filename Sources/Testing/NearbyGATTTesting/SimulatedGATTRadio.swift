import NearbyGATT
import NearbySession
import Synchronization

/// A simulated Bluetooth LE radio between one payee (a peripheral serving a `GATTListener`)
/// and payers (centrals dialing it), for tests. Every connection joins two `GATTPacketPort`s —
/// the same protocol the CoreBluetooth adapter implements — so the links, the listener and the
/// session above them are the shipped code.
///
/// Each direction of a connection has a radio queue of `queueCapacity` packets: `trySend`
/// answers false when it is full, and the sender's link hears `readyToSend()` once a packet
/// has left it (as CoreBluetooth's `canSendWriteWithoutResponse` and
/// `peripheralIsReady(toSendWriteWithoutResponse:)` behave). One delivery task per direction
/// takes packets in order and hands them to the other side, so delivery order is deterministic
/// and nothing is lost while the connection stands. A direction can be stalled (the reader
/// stops reading) and released; a connection can be cut mid-payment, by hand or after a given
/// number of packets.
public final class SimulatedGATTRadio: Sendable {
    public struct Conditions: Sendable {
        /// The negotiated ATT MTU; packets are `attMTU − 3` bytes (clamped to [20, 512]).
        public var attMTU: Int
        /// Packets each direction's radio queue holds before `trySend` answers false.
        public var queueCapacity: Int
        /// Frames each `GATTLink` holds before `send` suspends.
        public var linkCapacity: Int
        /// Cut connection number `i` (0-based) when it has carried this many packets (both
        /// directions together) — before delivering the next one.
        public var cutAfterPackets: [Int: Int]

        public init(attMTU: Int, queueCapacity: Int = 4, linkCapacity: Int = 8, cutAfterPackets: [Int: Int] = [:]) {
            self.attMTU = attMTU
            self.queueCapacity = queueCapacity
            self.linkCapacity = linkCapacity
            self.cutAfterPackets = cutAfterPackets
        }
    }

    /// What the radio carried, over every connection.
    public struct Counters: Sendable, Equatable {
        public var connections = 0
        /// Packets delivered, central → peripheral and back.
        public var toPeripheral = 0
        public var toCentral = 0
        /// `trySend` calls answered false (a full radio queue).
        public var refusals = 0
        /// Readiness signals given to a sender after a refusal.
        public var readySignals = 0
        /// The longest packet carried.
        public var longestPacket = 0
        public var cuts = 0
    }

    public enum Direction: Sendable, Hashable {
        case toPeripheral, toCentral
    }

    private struct State {
        var counters = Counters()
        var current: SimulatedGATTConnection?
        var stalled: Set<Direction> = []
    }

    public let conditions: Conditions
    /// The payee's listener: serve it with the session (`NearbyReceiver.serve`,
    /// `NearbyReceiveFlow.serve`). Closing it makes further dials fail with `.payeeNotFound`.
    public let listener: GATTListener
    private let state = Mutex(State())

    public init(_ conditions: Conditions) {
        self.conditions = conditions
        listener = GATTListener(capacity: conditions.linkCapacity)
    }

    /// The payer's dialer: each `connect()` is a new connection from the same central (as a
    /// phone reconnecting), subscribed and ready, or `.payeeNotFound` once the listener closed.
    public var dialer: GATTDialer {
        GATTDialer { [self] in try self.connect() }
    }

    public var counters: Counters { state.withLock { $0.counters } }

    /// Stops delivering in `direction` on the current and later connections: its radio
    /// queue fills, then the sender's link queue, then the sender suspends.
    public func stall(_ direction: Direction) {
        state.withLock { _ = $0.stalled.insert(direction) }
    }

    /// Delivers again in `direction`.
    public func release(_ direction: Direction) {
        let connection = state.withLock { s in
            s.stalled.remove(direction)
            return s.current
        }
        connection?.wake(direction)
    }

    /// Cuts the current connection (both sides hear `disconnected`, queued packets are lost).
    public func cut() {
        state.withLock { $0.current }?.cut(reason: "simulated radio cut")
    }

    /// The payer's link of the current connection, for tests that drive links directly.
    public var currentCentralLink: GATTLink? { state.withLock { $0.current?.centralLink } }

    static let central = "simulated-central"

    private func connect() throws -> GATTLink {
        guard !listener.isClosed else { throw GATTLinkError.payeeNotFound }
        let connection: SimulatedGATTConnection = state.withLock { s in
            let index = s.counters.connections
            s.counters.connections += 1
            let c = SimulatedGATTConnection(radio: self, cutAfter: conditions.cutAfterPackets[index], stalled: s.stalled)
            s.current = c
            return c
        }
        guard connection.start() else { throw GATTLinkError.payeeNotFound }
        return connection.centralLink
    }

    func isStalled(_ direction: Direction) -> Bool { state.withLock { $0.stalled.contains(direction) } }

    func count(_ update: (inout Counters) -> Void) { state.withLock { update(&$0.counters) } }
}

/// One connection: two ports, two radio queues, two delivery tasks.
final class SimulatedGATTConnection: Sendable {
    private struct Queue {
        var packets: [[UInt8]] = []
        /// A packet taken off `packets` that the delivery task has not handed over yet: the
        /// connection may not end under it (a closing side's last ACK would be lost).
        var delivering = false
        var refused = false
        var wakeup: AsyncStream<Void>.Continuation?
    }

    private struct State {
        var queues: [SimulatedGATTRadio.Direction: Queue] = [.toPeripheral: Queue(), .toCentral: Queue()]
        var carried = 0
        var cut = false
        var closing = false
    }

    private let radio: SimulatedGATTRadio
    private let cutAfter: Int?
    private let state = Mutex(State())
    private let peripheralLink = Mutex<GATTLink?>(nil)
    let centralLink: GATTLink
    private let centralPort: Port
    private let peripheralPort = Mutex<Port?>(nil)

    init(radio: SimulatedGATTRadio, cutAfter: Int?, stalled: Set<SimulatedGATTRadio.Direction>) {
        self.radio = radio
        self.cutAfter = cutAfter
        let port = Port(direction: .toPeripheral, packetLength: GATTProfile.packetLength(attMTU: radio.conditions.attMTU))
        centralLink = GATTLink(port: port, capacity: radio.conditions.linkCapacity)
        centralPort = port
        // The ports reach the connection through this reference until it is cut.
        port.connection.withLock { $0 = self }
    }

    /// Subscribes the central: the listener accepts the peripheral's port; delivery starts.
    func start() -> Bool {
        let port = Port(direction: .toCentral, packetLength: packetLength)
        port.connection.withLock { $0 = self }
        peripheralPort.withLock { $0 = port }
        guard let link = radio.listener.accept(port, central: SimulatedGATTRadio.central) else { return false }
        peripheralLink.withLock { $0 = link }
        for direction in [SimulatedGATTRadio.Direction.toPeripheral, .toCentral] {
            let (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            state.withLock { $0.queues[direction]?.wakeup = continuation }
            Task { await self.deliver(direction, wakeups: wakeups) }
        }
        return true
    }

    var packetLength: Int { GATTProfile.packetLength(attMTU: radio.conditions.attMTU) }

    func trySend(_ packet: [UInt8], _ direction: SimulatedGATTRadio.Direction) -> Bool {
        precondition(packet.count <= packetLength, "the link sent a packet longer than the ATT MTU allows")
        let accepted: Bool = state.withLock { s in
            guard !s.cut, !s.closing else { return false }
            guard let queued = s.queues[direction]?.packets.count, queued < radio.conditions.queueCapacity else {
                s.queues[direction]?.refused = true
                return false
            }
            s.queues[direction]?.packets.append(packet)
            s.queues[direction]?.wakeup?.yield()
            return true
        }
        radio.count { c in
            if accepted { c.longestPacket = max(c.longestPacket, packet.count) } else { c.refusals += 1 }
        }
        return accepted
    }

    func wake(_ direction: SimulatedGATTRadio.Direction) {
        state.withLock { _ = $0.queues[direction]?.wakeup?.yield() }
    }

    /// The radio: takes packets in order, one at a time, hands each to the other side, and
    /// tells a refused sender it may send again.
    private func deliver(_ direction: SimulatedGATTRadio.Direction, wakeups: AsyncStream<Void>) async {
        for await _ in wakeups {
            while !radio.isStalled(direction) {
                enum Step { case none, packet([UInt8], ready: Bool), cut }
                let step: Step = state.withLock { s in
                    guard !s.cut, let packet = s.queues[direction]?.packets.first else { return .none }
                    if let cutAfter, s.carried >= cutAfter { return .cut }
                    s.carried += 1
                    s.queues[direction]?.packets.removeFirst()
                    s.queues[direction]?.delivering = true
                    let ready = s.queues[direction]?.refused ?? false
                    s.queues[direction]?.refused = false
                    return .packet(packet, ready: ready)
                }
                guard case .packet(let packet, let ready) = step else {
                    if case .cut = step { cut(reason: "simulated radio cut after \(cutAfter ?? 0) packets") }
                    break
                }
                switch direction {
                case .toPeripheral:
                    radio.count { $0.toPeripheral += 1 }
                    radio.listener.received(packet, from: SimulatedGATTRadio.central)
                    if ready {
                        radio.count { $0.readySignals += 1 }
                        centralLink.readyToSend()
                    }
                case .toCentral:
                    radio.count { $0.toCentral += 1 }
                    centralLink.received(packet)
                    if ready {
                        radio.count { $0.readySignals += 1 }
                        radio.listener.readyToSend()
                    }
                }
                state.withLock { _ = $0.queues[direction]?.delivering = false }
                // Let the other tasks run between packets, so a burst fills the queue.
                await Task.yield()
            }
            if finishClosing() { return }
        }
    }

    /// A side's `disconnect()`: the packets already in the radio go out, then the connection ends.
    func disconnect() {
        let idle = state.withLock { s in
            s.closing = true
            return s.queues.values.allSatisfy { $0.packets.isEmpty && !$0.delivering }
        }
        if idle {
            cut(reason: "the other device disconnected")
        } else {
            state.withLock { s in s.queues.values.forEach { _ = $0.wakeup?.yield() } }
        }
    }

    private func finishClosing() -> Bool {
        // Both directions: the other direction's task may still be handing over a packet it
        // took (it calls this again once it has).
        let done = state.withLock { s in s.closing && s.queues.values.allSatisfy { $0.packets.isEmpty && !$0.delivering } }
        if done { cut(reason: "the other device disconnected") }
        return done
    }

    func cut(reason: String) {
        let first = state.withLock { s in
            guard !s.cut else { return false }
            s.cut = true
            for direction in Array(s.queues.keys) {
                s.queues[direction]?.packets = []
                s.queues[direction]?.wakeup?.finish()
            }
            return true
        }
        guard first else { return }
        // Break the port ↔ connection cycle: a dead connection takes nothing more.
        centralPort.connection.withLock { $0 = nil }
        peripheralPort.withLock { $0 }?.connection.withLock { $0 = nil }
        radio.count { $0.cuts += 1 }
        centralLink.disconnected(reason: reason)
        // The peripheral hears the central go; a listener that already gave the central a newer
        // link keeps that one.
        if let link = peripheralLink.withLock({ $0 }) {
            if radio.listener.link(for: SimulatedGATTRadio.central) === link {
                radio.listener.disconnected(central: SimulatedGATTRadio.central, reason: reason)
            } else {
                link.disconnected(reason: reason)
            }
        }
    }

    /// One side's port: `trySend` puts packets into this direction's radio queue.
    final class Port: GATTPacketPort {
        let direction: SimulatedGATTRadio.Direction
        let maximumPacketLength: Int
        let connection = Mutex<SimulatedGATTConnection?>(nil)

        init(direction: SimulatedGATTRadio.Direction, packetLength: Int) {
            self.direction = direction
            maximumPacketLength = packetLength
        }

        func trySend(_ packet: [UInt8]) -> Bool { connection.withLock { $0 }?.trySend(packet, direction) ?? false }
        func disconnect() {
            let c = connection.withLock { $0 }
            c?.disconnect()
        }
    }
}
