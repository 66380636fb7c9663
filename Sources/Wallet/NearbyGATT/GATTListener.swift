import NearbySession
import Synchronization

/// The payee's side (the peripheral): one `GATTLink` per payer that subscribed to `outbox`,
/// handed to the session as `LinkListener.connections()`.
///
/// The adapter routes by the central's identifier: `accept(_:central:)` when a central
/// subscribes to `outbox`, `received(_:from:)` for its writes on `inbox`,
/// `readyToSend()` when the peripheral manager can notify again (it is one queue for all
/// centrals), and `disconnected(central:reason:)` when it unsubscribes or drops. Writes from a
/// central that has not subscribed are ignored (the payer subscribes before it writes).
public final class GATTListener: LinkListener, Sendable {
    private struct State {
        var links: [String: GATTLink] = [:]
        /// Links `close()` closed that still hand their queued frames to the radio. They are
        /// no longer routed writes, but the peripheral manager's readiness must still reach
        /// them: without it a link whose last `trySend` was refused never drains, never
        /// disconnects, and its payer waits for frames that never leave.
        var draining: [String: GATTLink] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let stream: AsyncStream<any LinkConnection>
    private let continuation: AsyncStream<any LinkConnection>.Continuation
    private let onClose: @Sendable () -> Void
    private let capacity: Int

    /// - Parameters:
    ///   - capacity: each link's outbound frames before `send` suspends.
    ///   - onClose: called once by `close()`, after every link is closed: the adapter stops
    ///     advertising and removes the session service.
    public init(capacity: Int = 32, onClose: @escaping @Sendable () -> Void = {}) {
        self.capacity = capacity
        self.onClose = onClose
        (stream, continuation) = AsyncStream.makeStream(of: (any LinkConnection).self)
    }

    /// Links as payers subscribe; finishes when the listener closes. Call once.
    public func connections() -> AsyncStream<any LinkConnection> { stream }

    /// Whether `close()` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// A central subscribed to `outbox`: a new link over `port`, handed to the session. A
    /// central that subscribes again replaces its old link (which ends as disconnected).
    /// Nil after `close()` (the adapter then disconnects that central).
    @discardableResult
    public func accept(_ port: any GATTPacketPort, central: String) -> GATTLink? {
        let link = GATTLink(port: port, capacity: capacity)
        let (accepted, replaced): (Bool, GATTLink?) = state.withLock { s in
            guard !s.closed else { return (false, nil) }
            let old = s.links.updateValue(link, forKey: central)
            return (true, old)
        }
        replaced?.disconnected(reason: "the payer subscribed again")
        guard accepted else { return nil }
        continuation.yield(link)
        return link
    }

    /// The link of `central`, if it is subscribed.
    public func link(for central: String) -> GATTLink? { state.withLock { $0.links[central] } }

    /// A write on `inbox` from `central`; ignored unless it is subscribed.
    public func received(_ packet: [UInt8], from central: String) {
        link(for: central)?.received(packet)
    }

    /// The peripheral manager can send notifications again: every link retries its queue,
    /// including the links a `close()` left draining.
    public func readyToSend() {
        let links = state.withLock { s in
            s.draining = s.draining.filter { $0.value.isDraining }
            return Array(s.links.values) + Array(s.draining.values)
        }
        for link in links { link.readyToSend() }
    }

    /// The link of `central` that still needs the radio's readiness: its subscribed link, or
    /// the link a `close()` left handing over its last frames. The adapter routes a
    /// per-central readiness signal with it.
    public func sendingLink(for central: String) -> GATTLink? {
        state.withLock { s in
            if let link = s.links[central] { return link }
            guard let link = s.draining[central], link.isDraining else { return nil }
            return link
        }
    }

    /// `central` unsubscribed from `outbox` or disconnected: its link ends (the session keeps
    /// its state for a resume on the next link).
    public func disconnected(central: String, reason: String) {
        let links = state.withLock { s in
            [s.links.removeValue(forKey: central), s.draining.removeValue(forKey: central)].compactMap { $0 }
        }
        for link in links { link.disconnected(reason: reason) }
    }

    /// Stops accepting: every link closes, `connections()` finishes, and `onClose` runs once.
    public func close() {
        let links: [GATTLink]? = state.withLock { s in
            guard !s.closed else { return nil }
            s.closed = true
            let links = Array(s.links.values)
            s.draining = s.links
            s.links = [:]
            return links
        }
        guard let links else { return }
        for link in links { link.close() }
        state.withLock { s in s.draining = s.draining.filter { $0.value.isDraining } }
        continuation.finish()
        onClose()
    }
}
