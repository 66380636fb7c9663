import NearbySession
import Synchronization

/// What the radio adapter gives a `GATTLink` for one connection: the payer's central writing
/// to the payee's `inbox` characteristic, or the payee's peripheral notifying the payer on
/// `outbox`. The CoreBluetooth adapter implements it in the app, `SimulatedGATTRadio` in tests.
public protocol GATTPacketPort: Sendable {
    /// The longest packet the radio takes now: ATT MTU − 3 (CoreBluetooth's
    /// `maximumWriteValueLength(for: .withoutResponse)` on the central, the subscribed central's
    /// `maximumUpdateValueLength` on the peripheral). The link clamps it to [20, 512].
    var maximumPacketLength: Int { get }
    /// Hands one packet to the radio; false when the radio's queue is full (CoreBluetooth's
    /// `canSendWriteWithoutResponse` is false, or `updateValue(_:for:onSubscribedCentrals:)`
    /// returned false). After a false, the adapter calls the link's `readyToSend()` once the
    /// radio can take more. Called from any thread, including from inside `readyToSend()`,
    /// `received(_:)` and `send(_:)`, never twice at once for one link; it must not block
    /// waiting for the adapter's own queue.
    func trySend(_ packet: [UInt8]) -> Bool
    /// Drops the connection (the central cancels it; the peripheral stops serving that
    /// central). The adapter need not call the link's `disconnected(reason:)` for it.
    func disconnect()
}

/// Why a Bluetooth LE link failed; each message says what to do.
public enum GATTLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bluetooth is switched off.
    case bluetoothOff
    /// The person has not allowed this app to use Bluetooth.
    case unauthorized
    /// The device has no Bluetooth LE.
    case unsupported
    /// No device offering the request's service was found nearby.
    case payeeNotFound
    /// The device connected but does not offer the wallet's session service or characteristics.
    case serviceNotFound
    /// The connection dropped; the session resumes on a new link. The text is the radio's reason.
    case disconnected(String)
    /// This side closed the link.
    case closed
    /// A frame longer than the link's packet length (the session never sends one).
    case frameTooLarge(size: Int, maximum: Int)

    public var description: String {
        switch self {
        case .bluetoothOff: "Bluetooth is off: turn it on in Settings, or pay by QR."
        case .unauthorized:
            "This app may not use Bluetooth: allow it in Settings → Privacy & Security → Bluetooth, or pay by QR."
        case .unsupported: "This device has no Bluetooth LE: pay by QR."
        case .payeeNotFound:
            "The payee's phone was not found nearby: keep it close with the request on its screen, or pay by QR."
        case .serviceNotFound:
            "That device does not offer this request's payment service: ask the payee to show the request again, or pay by QR."
        case .disconnected(let reason):
            "The Bluetooth link dropped (\(reason)). Keep the phones close; the payment resumes where it stopped."
        case .closed: "The Bluetooth link was closed."
        case .frameTooLarge(let size, let maximum):
            "A \(size)-byte frame does not fit the Bluetooth link's \(maximum)-byte packets (a bug in the sender)."
        }
    }
}

/// A nearby-session link over one Bluetooth LE connection: each session frame is one packet
/// (one write without response, or one notification) of at most `mtu` bytes.
///
/// Outbound frames are queued in order and handed to the radio through the port's `trySend`;
/// when the radio's queue is full the link waits for `readyToSend()`, so frames are never
/// dropped or reordered. At most `capacity` frames wait in the link: a `send` beyond that
/// suspends until the radio takes one (backpressure), and returns once its frame is queued.
/// The adapter feeds packets with `received(_:)` and reports the end with
/// `disconnected(reason:)`. Thread-safe; no timers.
public final class GATTLink: LinkConnection, Sendable {
    private struct Waiter {
        let id: UInt64
        let frame: [UInt8]
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Frames accepted by `send`, not yet taken by the radio, oldest first.
        var queue: [[UInt8]] = []
        /// Senders waiting for room, in order; their frames follow `queue`.
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
        /// One caller at a time moves frames to the radio, so they leave in order.
        var pumping = false
        /// The radio refused a packet and has not signalled readiness since.
        var waitingForReady = false
        /// Readiness arrived while a `trySend` was under way (its false may be stale).
        var readySeen = false
        /// Set by `close()`: no new frames; the port disconnects once the queue drains.
        var closing = false
        /// The link is gone (why); everything fails with it.
        var failure: GATTLinkError?
        var disconnectRequested = false
    }

    /// Frames the link holds before `send` suspends.
    public let capacity: Int
    private let port: any GATTPacketPort
    private let state = Mutex(State())
    private let stream: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    /// - Parameters:
    ///   - port: the adapter's side of the connection.
    ///   - capacity: frames held before `send` suspends (at least 1).
    public init(port: any GATTPacketPort, capacity: Int = 32) {
        self.port = port
        self.capacity = max(1, capacity)
        (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
    }

    // MARK: LinkConnection (the session's side)

    /// The port's current packet length, clamped to [20, 512].
    public var mtu: Int { GATTProfile.clampPacketLength(port.maximumPacketLength) }

    /// Queues `frame` after every frame sent before it and returns once it is queued: at once
    /// while fewer than `capacity` frames wait, otherwise when the radio has taken enough.
    /// Throws `GATTLinkError.frameTooLarge` for a frame longer than `mtu`, and the link's
    /// failure once it is disconnected or closed (a waiting send too).
    public func send(_ frame: [UInt8]) async throws {
        let limit = mtu
        guard frame.count <= limit else { throw GATTLinkError.frameTooLarge(size: frame.count, maximum: limit) }
        let queued: Bool = try state.withLock { s in
            if let failure = s.failure { throw failure }
            if s.closing { throw GATTLinkError.closed }
            guard s.waiters.isEmpty, s.queue.count < capacity else { return false }
            s.queue.append(frame)
            return true
        }
        if queued {
            pump()
            return
        }
        let id = state.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // nil: waiting; .some(nil): queued after all; .some(error): refused.
                let refused: (any Error)?? = state.withLock { s in
                    if let failure = s.failure { return failure }
                    if s.closing { return GATTLinkError.closed }
                    if Task.isCancelled { return CancellationError() }
                    // The radio may have taken the whole queue since the first look.
                    if s.waiters.isEmpty, s.queue.count < capacity {
                        s.queue.append(frame)
                        return .some(nil)
                    }
                    s.waiters.append(Waiter(id: id, frame: frame, continuation: continuation))
                    return nil
                }
                switch refused {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { s in
                guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: i)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // Room may have opened between queueing and now; the queue moves on readiness anyway.
        pump()
    }

    /// The peer's packets in order of arrival; finishes with `GATTLinkError.disconnected` when
    /// the connection drops, or normally after `close()`. Call once.
    public func inbound() -> AsyncThrowingStream<[UInt8], any Error> { stream }

    /// Stops the link: inbound ends, waiting sends fail with `.closed`, and the port
    /// disconnects once the frames already queued have gone to the radio (a session's last
    /// ACK is not cut off).
    public func close() {
        let (waiters, disconnectNow) = state.withLock { s -> ([Waiter], Bool) in
            guard s.failure == nil, !s.closing else { return ([], false) }
            s.closing = true
            let waiters = s.waiters
            s.waiters = []
            let now = s.queue.isEmpty && !s.pumping
            if now { s.disconnectRequested = true }
            return (waiters, now)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: GATTLinkError.closed) }
        continuation.finish()
        if disconnectNow { port.disconnect() }
    }

    // MARK: The adapter's side

    /// A packet arrived (a write on `inbox`, a notification on `outbox`).
    public func received(_ packet: [UInt8]) {
        continuation.yield(packet)
    }

    /// The radio can take packets again (CoreBluetooth's `peripheralIsReady(toSendWriteWithoutResponse:)`
    /// or `peripheralManagerIsReady(toUpdateSubscribers:)`). Harmless when nothing waits.
    public func readyToSend() {
        state.withLock { s in
            s.waitingForReady = false
            s.readySeen = true
        }
        pump()
    }

    /// The connection is gone (the peer disconnected, went out of range, unsubscribed, or
    /// Bluetooth turned off): inbound ends with `.disconnected(reason)`, and queued and waiting
    /// frames fail. The session resumes on a new link.
    public func disconnected(reason: String) {
        let waiters: [Waiter]? = state.withLock { s in
            guard s.failure == nil else { return nil }
            s.failure = .disconnected(reason)
            s.queue = []
            let waiters = s.waiters
            s.waiters = []
            return waiters
        }
        guard let waiters else { return }
        for waiter in waiters { waiter.continuation.resume(throwing: GATTLinkError.disconnected(reason)) }
        continuation.finish(throwing: GATTLinkError.disconnected(reason))
    }

    /// Whether the link is still usable (neither closed nor disconnected).
    public var isOpen: Bool { state.withLock { $0.failure == nil && !$0.closing } }

    /// Closed but still handing its queued frames to the radio before it disconnects: it
    /// still needs `readyToSend()`.
    public var isDraining: Bool { state.withLock { $0.closing && $0.failure == nil && !$0.disconnectRequested } }

    /// Frames queued for the radio and senders suspended for room (for tests).
    var backlog: (queued: Int, waiting: Int) { state.withLock { ($0.queue.count, $0.waiters.count) } }

    // MARK: Pumping

    /// Moves queued frames to the radio until it refuses one or the queue is empty. Only one
    /// caller pumps at a time (the others' frames are picked up by its loop), and the port is
    /// called outside the lock, so an adapter may call back into the link from `trySend`.
    private func pump() {
        let start = state.withLock { s in
            guard !s.pumping, !s.waitingForReady, s.failure == nil else { return false }
            s.pumping = true
            return true
        }
        guard start else { return }
        while true {
            let head: [UInt8]? = state.withLock { s in
                s.readySeen = false
                guard s.failure == nil, let head = s.queue.first else {
                    s.pumping = false
                    return nil
                }
                return head
            }
            guard let head else { break }
            let taken = port.trySend(head)
            let (resumed, stop): (Waiter?, Bool) = state.withLock { s in
                guard s.failure == nil else {
                    s.pumping = false
                    return (nil, true)
                }
                guard taken else {
                    if s.readySeen { return (nil, false) }  // readiness came meanwhile: try again
                    s.waitingForReady = true
                    s.pumping = false
                    return (nil, true)
                }
                s.queue.removeFirst()
                guard !s.waiters.isEmpty else { return (nil, false) }
                let waiter = s.waiters.removeFirst()
                s.queue.append(waiter.frame)
                return (waiter, false)
            }
            resumed?.continuation.resume()
            if stop { return }
        }
        // The queue drained: a closing link may now disconnect.
        let disconnect = state.withLock { s in
            guard s.closing, s.queue.isEmpty, !s.pumping, !s.disconnectRequested, s.failure == nil else { return false }
            s.disconnectRequested = true
            return true
        }
        if disconnect { port.disconnect() }
    }
}
