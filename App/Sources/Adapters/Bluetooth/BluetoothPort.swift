#if canImport(CoreBluetooth)
import Dispatch
import NearbyGATT
import Synchronization

/// The radio end of one connection, as a port sees it: the central writing to the payee's
/// `inbox`, or the peripheral notifying one payer on `outbox`. Called on `bluetoothQueue` only.
protocol BluetoothRadioEnd: AnyObject {
    /// Hands one packet to CoreBluetooth; false when its queue is full (a readiness callback
    /// follows, and the adapter drains the port again then).
    func write(_ packet: [UInt8]) -> Bool
    /// The link's `readyToSend()`: the port has room again after refusing it a packet.
    func linkHasRoom()
    /// The link closed: drop the connection (central) or stop serving the central (peripheral).
    func drop()
}

/// One connection's `GATTPacketPort`.
///
/// `GATTLink` calls `trySend` from the session's threads (and from inside its own
/// `readyToSend()`, which this adapter calls on the Bluetooth queue), and must never wait for
/// that queue. CoreBluetooth objects live on the queue only. So packets wait here, in a small
/// bounded queue behind a lock, and `drain()` hands them to CoreBluetooth on the Bluetooth queue
/// — in order, until CoreBluetooth refuses one (its own queue is full), and again on its
/// readiness callback. When this queue is full `trySend` says no, and the link is told
/// `readyToSend()` once there is room: backpressure reaches the session, nothing is dropped.
final class BluetoothPort: GATTPacketPort, @unchecked Sendable {
    // @unchecked: `radio` is a weak reference set once in `init` and only dereferenced on
    // `bluetoothQueue`; everything else is immutable or inside the `Mutex`.

    private struct State {
        var packets: [[UInt8]] = []
        /// `trySend` said no: the link waits for `readyToSend()`.
        var owesRoom = false
        /// A `drain()` is on its way to the queue.
        var drainScheduled = false
        /// The link closed: the connection is dropped once the packets here went to the radio
        /// (the link hands over its last frames before it disconnects, and they must not be
        /// cut off here either: a fetched request's last frame, a session's last ACK).
        var dropRequested = false
        /// The connection is gone: packets are swallowed (the link has failed already, or is
        /// about to: the adapter tells it `disconnected(reason:)`).
        var dropped = false
    }

    /// ATT MTU − 3, read once when the connection was set up (iOS negotiates the ATT MTU right
    /// after connecting and never changes it on a connection): the central's
    /// `maximumWriteValueLength(for: .withoutResponse)`, or the subscribed central's
    /// `maximumUpdateValueLength`.
    let maximumPacketLength: Int
    /// Packets held here before `trySend` says no. CoreBluetooth queues more behind it.
    let capacity: Int
    private weak var radio: (any BluetoothRadioEnd)?
    private let state = Mutex(State())

    init(maximumPacketLength: Int, radio: any BluetoothRadioEnd, capacity: Int = 4) {
        self.maximumPacketLength = maximumPacketLength
        self.radio = radio
        self.capacity = max(1, capacity)
    }

    // MARK: GATTPacketPort (any thread)

    func trySend(_ packet: [UInt8]) -> Bool {
        let (taken, schedule): (Bool, Bool) = state.withLock { s in
            if s.dropped { return (true, false) }
            guard s.packets.count < capacity else {
                s.owesRoom = true
                return (false, false)
            }
            s.packets.append(packet)
            guard !s.drainScheduled else { return (true, false) }
            s.drainScheduled = true
            return (true, true)
        }
        if schedule { bluetoothQueue.async { self.drain() } }
        return taken
    }

    func disconnect() {
        state.withLock { $0.dropRequested = true }
        bluetoothQueue.async { self.drain() }
    }

    // MARK: The adapter's side (Bluetooth queue)

    /// Hands the waiting packets to CoreBluetooth until it refuses one; then, if the link was
    /// refused a packet and there is room, tells it so; once the link has closed and nothing
    /// waits, drops the connection. Called after `trySend` queued a packet, after `disconnect()`,
    /// and on CoreBluetooth's readiness callbacks.
    func drain() {
        dispatchPrecondition(condition: .onQueue(bluetoothQueue))
        state.withLock { $0.drainScheduled = false }
        guard let radio else { return }
        while let head = state.withLock({ s in s.dropped ? nil : s.packets.first }) {
            guard radio.write(head) else { break }
            state.withLock { s in
                if !s.packets.isEmpty { s.packets.removeFirst() }
            }
        }
        enum Next { case nothing, room, drop }
        let next: Next = state.withLock { s in
            guard !s.dropped else { return .nothing }
            if s.dropRequested {
                guard s.packets.isEmpty else { return .nothing }
                s.dropped = true
                return .drop
            }
            guard s.owesRoom, s.packets.count < capacity else { return .nothing }
            s.owesRoom = false
            return .room
        }
        switch next {
        case .nothing: break
        case .room: radio.linkHasRoom()
        case .drop: radio.drop()
        }
    }

    /// The connection is gone (the adapter tells the link why): nothing more goes out.
    func connectionEnded() {
        state.withLock { s in
            s.dropped = true
            s.packets = []
        }
    }
}
#endif
