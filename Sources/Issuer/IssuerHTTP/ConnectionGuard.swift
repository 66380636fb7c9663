import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a client may take over each part of a request, and how many connections the server
/// and each client address may hold open (docs/server.md, "Connections"). A client that is slow,
/// silent or holds too many sockets loses its connection; it cannot keep others out.
public struct ConnectionLimits: Sendable, Equatable {
    /// A kept-alive connection on which no byte arrives for this long after a response is closed.
    public var idleTimeout: Duration
    /// A request head must be complete this long after the connection was accepted or, on a
    /// kept-alive connection, after the first byte of the request; else the connection is closed.
    public var headerTimeout: Duration
    /// A request body must be complete this long after its head; else the connection is closed.
    public var bodyTimeout: Duration
    /// Most connections open at once. At the limit a new connection takes the place of the
    /// oldest one with no request in progress (silent, half a head, or idle between requests);
    /// if every one is serving a request, the new connection is closed at once.
    public var maxConnections: Int
    /// Most connections open at once from one client address. At this cap a new connection
    /// from the address takes the place of its oldest one with no request in progress, or is
    /// closed at once if all of them are serving requests.
    public var maxConnectionsPerClient: Int

    public init(
        idleTimeout: Duration = .seconds(30), headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30),
        maxConnections: Int = ConnectionLimits.defaultMaxConnections(), maxConnectionsPerClient: Int = 128
    ) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
    }

    /// The most connections the default allows, however many descriptors the process may open.
    public static let defaultCeiling = 16_384

    /// The process's soft limit on open file descriptors (`ulimit -n`), or nil if unknown or unlimited.
    public static func descriptorLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        // RLIM_INFINITY is the largest value (Linux) or Int64.max (Darwin): either means unlimited.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Descriptors kept back from client connections out of `descriptors`: the listening socket,
    /// the database (SQLite's files, or the PostgreSQL pool), logs, key files and the EVM node's client.
    public static func descriptorReserve(of descriptors: Int) -> Int { max(64, descriptors / 8) }

    /// The most connections `descriptors` leaves room for after the reserve (0 if none).
    public static func connectionBudget(descriptors: Int) -> Int { max(0, descriptors - descriptorReserve(of: descriptors)) }

    /// The default global limit: the descriptor budget, at most `defaultCeiling`, at least 1.
    public static func defaultMaxConnections(descriptors: Int? = descriptorLimit()) -> Int {
        guard let descriptors else { return defaultCeiling }
        return max(1, min(defaultCeiling, connectionBudget(descriptors: descriptors)))
    }
}

/// The open connections of one server, counted globally and per client address. Shared by every
/// event loop's connections, so guarded by a lock; each call holds it for a few dictionary updates
/// (an admission at the limit also scans the open connections once for one to close).
final class ConnectionRegistry: Sendable {
    enum Admission {
        /// Serve it; close `evicted`, the connection whose place it takes, if any.
        case admitted(evicted: (any Channel)?)
        /// Close it: its client holds `maxConnectionsPerClient` connections, all serving requests.
        case clientAtCap
        /// Close it: the server holds `maxConnections` and every one is serving a request.
        case full
    }

    private struct Entry {
        let channel: any Channel
        let client: String
        let serial: UInt64
        var busy: Bool
    }

    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        var perClient: [String: Int] = [:]
        var nextSerial: UInt64 = 0

        @discardableResult
        mutating func remove(_ id: ObjectIdentifier) -> (any Channel)? {
            guard let entry = open.removeValue(forKey: id) else { return nil }
            let left = perClient[entry.client, default: 1] - 1
            perClient[entry.client] = left > 0 ? left : nil
            return entry.channel
        }

        /// The oldest connection with no request in progress, of `client` or of anyone.
        func oldestIdle(of client: String?) -> ObjectIdentifier? {
            var oldest: (id: ObjectIdentifier, serial: UInt64)?
            for (id, entry) in open
            where !entry.busy && entry.serial < (oldest?.serial ?? .max) && (client == nil || entry.client == client) {
                oldest = (id, entry.serial)
            }
            return oldest?.id
        }
    }

    let limits: ConnectionLimits
    private let state = Mutex(State())

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Connections open now.
    var count: Int { state.withLock { $0.open.count } }

    func admit(_ channel: any Channel) -> Admission {
        let client = channel.remoteAddress?.ipAddress ?? "unknown"
        return state.withLock { state in
            var evicted: (any Channel)?
            if state.perClient[client, default: 0] >= limits.maxConnectionsPerClient {
                guard let victim = state.oldestIdle(of: client) else { return .clientAtCap }
                evicted = state.remove(victim)
            }
            // After a place was freed above, the server holds fewer than its limit.
            if state.open.count >= limits.maxConnections {
                guard let victim = state.oldestIdle(of: nil) else { return .full }
                evicted = state.remove(victim)
            }
            state.nextSerial += 1
            state.open[ObjectIdentifier(channel)] = Entry(channel: channel, client: client, serial: state.nextSerial, busy: false)
            state.perClient[client, default: 0] += 1
            return .admitted(evicted: evicted)
        }
    }

    /// Marks a connection as serving a request (its head has arrived) or not; a busy connection
    /// is never closed to make room.
    func setBusy(_ channel: any Channel, _ busy: Bool) {
        state.withLock { $0.open[ObjectIdentifier(channel)]?.busy = busy }
    }

    func release(_ channel: any Channel) {
        state.withLock { $0.remove(ObjectIdentifier(channel)) }
    }
}

/// Sent down a connection's pipeline each time bytes arrive from the client, before they are
/// decoded: how `RequestDeadlineHandler` learns that a kept-alive connection's next request began.
struct ClientBytesArrived {}

/// A child channel that admits each connection through a `ConnectionRegistry` and then sets up
/// `Base` (HTTP/1, or TLS around it) behind a handler that keeps the registry's count and reports
/// the client's bytes. A refused connection is set up as usual and closed straight after, so the
/// server's accept loop never sees a failed setup.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let registry: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admission = registry.admit(channel)
        var admitted = false
        if case .admitted(let evicted) = admission {
            admitted = true
            evicted?.close(promise: nil)
        } else {
            logger.debug("connection from \(channel.remoteAddress?.ipAddress ?? "unknown") refused: \(admission)")
        }
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionCountHandler(registry: registry, counted: admitted))
        } catch {
            if admitted { registry.release(channel) }
            return channel.eventLoop.makeFailedFuture(error)
        }
        let setUp = base.setup(channel: channel, logger: logger)
        guard admitted else {
            return setUp.map { value in
                channel.close(promise: nil)
                return value
            }
        }
        return setUp
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// First in a connection's pipeline (before TLS): gives the connection's place in the registry
/// back when it closes, and reports each arrival of client bytes.
final class ConnectionCountHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let registry: ConnectionRegistry
    private var counted: Bool

    init(registry: ConnectionRegistry, counted: Bool) {
        self.registry = registry
        self.counted = counted
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(ClientBytesArrived())
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release(context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release(context)
    }

    private func release(_ context: ChannelHandlerContext) {
        guard counted else { return }
        counted = false
        registry.release(context.channel)
    }
}

/// After HTTP decoding: closes a connection whose client is too slow for `ConnectionLimits`
/// (head, body, or the wait for the next request), and tells the registry while a request is in
/// progress. While the server itself works on a request no timer runs.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    /// Requests whose head arrived and whose response has not ended (more than one when the
    /// client pipelines).
    private var inFlight = 0
    /// Between a request's head and its end.
    private var readingBody = false
    /// Waiting on a kept-alive connection, and a byte of the next request has arrived.
    private var nextRequestStarted = false
    private var timer: Scheduled<Void>?
    private var armed = false

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ClientBytesArrived else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // The first byte of a kept-alive connection's next request: its head is now timed.
        if inFlight == 0, !readingBody, armed, !nextRequestStarted {
            nextRequestStarted = true
            schedule(context, after: limits.headerTimeout)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inFlight += 1
            readingBody = true
            registry.setBusy(context.channel, true)
            schedule(context, after: limits.bodyTimeout)
        case .body:
            break
        case .end:
            readingBody = false
            // Answered before its body ended (an early refusal), or still being answered.
            if inFlight == 0 { awaitNextRequest(context) } else { cancel() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), inFlight > 0 {
            inFlight -= 1
            // While a body is still arriving its timer keeps running.
            if inFlight == 0, !readingBody { awaitNextRequest(context) }
        }
        context.write(data, promise: promise)
    }

    /// Times the connection's first request head from now (accept).
    private func start(_ context: ChannelHandlerContext) {
        guard !armed else { return }
        armed = true
        nextRequestStarted = true
        schedule(context, after: limits.headerTimeout)
    }

    private func awaitNextRequest(_ context: ChannelHandlerContext) {
        nextRequestStarted = false
        registry.setBusy(context.channel, false)
        schedule(context, after: limits.idleTimeout)
    }

    private func schedule(_ context: ChannelHandlerContext, after delay: Duration) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [weak self] in
            self?.timer = nil
            context.close(promise: nil)
        }
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension ConnectionCountHandler: Sendable {}

@available(*, unavailable)
extension RequestDeadlineHandler: Sendable {}
