/// One link between two devices that carries whole frames of at most `mtu` bytes: a Bluetooth
/// LE characteristic, a TCP connection with length-prefixed frames, or a simulated link.
///
/// A link may drop frames or die; the session above it retransmits and resumes. Frames are
/// never altered undetected (the session's AES-GCM records catch that).
public protocol LinkConnection: Sendable {
    /// The largest frame this link carries in one write.
    var mtu: Int { get }
    func send(_ frame: [UInt8]) async throws
    /// The peer's frames in order of arrival; finishes (or throws) when the link is gone.
    /// Call once.
    func inbound() -> AsyncThrowingStream<[UInt8], any Error>
    func close()
}

/// How a payer opens links to the payee named in a request's transport hint.
public protocol LinkDialer: Sendable {
    func connect() async throws -> any LinkConnection
}

/// How a payee accepts links.
public protocol LinkListener: Sendable {
    /// Incoming links; finishes when the listener closes.
    func connections() -> AsyncStream<any LinkConnection>
    func close()
}

/// Timing of a session's driver.
public struct SessionOptions: Sendable {
    /// Retransmission timeout while the peer acknowledges nothing (doubles up to 8×).
    public var retransmitAfter: Duration
    /// How long the whole payment may take, reconnects included.
    public var timeout: Duration
    /// New links a payer opens after losing one, before giving up. A link the payee answers
    /// "busy" (still on the previous link) is not counted: `timeout` bounds those.
    public var maxReconnects: Int
    /// How long a payee keeps answering after the link carrying its reply dropped (counted
    /// from the drop, not from the reply, which may still be on its way), so a payer whose
    /// link dropped can still resume and fetch it.
    public var linger: Duration

    public init(
        retransmitAfter: Duration = .milliseconds(400), timeout: Duration = .seconds(60), maxReconnects: Int = 8,
        linger: Duration = .seconds(3)
    ) {
        self.retransmitAfter = retransmitAfter
        self.timeout = timeout
        self.maxReconnects = maxReconnects
        self.linger = linger
    }
}
