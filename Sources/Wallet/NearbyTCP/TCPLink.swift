import NIOCore
import NIOPosix
import NearbySession

/// Nearby-session links over TCP, for the command line and for tests between processes.
///
/// TCP is a byte stream, so each frame travels as `u16 big-endian length ‖ frame`
/// (docs/protocol.md §12.6). Frames are at most `TCPLink.mtu` bytes.
public enum TCPLink {
    /// Frame size on TCP; the session chunks to it like to a Bluetooth MTU.
    public static let mtu = 1024

    /// Accepts nearby-session links on `host:port` (port 0 picks a free one; see `port`).
    public static func listen(host: String, port: Int) async throws -> TCPListener {
        let (stream, continuation) = AsyncStream.makeStream(of: (any LinkConnection).self)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let connection = try TCPConnection.attach(to: child)
                    continuation.yield(connection)
                }
            }
            .bind(host: host, port: port).get()
        channel.closeFuture.whenComplete { _ in continuation.finish() }
        return TCPListener(channel: channel, stream: stream)
    }

    /// A dialer for the `host:port` of a request's TCP transport hint.
    public static func dialer(host: String, port: Int) -> some LinkDialer { TCPDialer(host: host, port: port) }

    /// Splits `host:port` (IPv6 hosts in brackets).
    public static func parse(address: String) -> (host: String, port: Int)? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        return (host, port)
    }
}

public final class TCPListener: LinkListener {
    let channel: any Channel
    let stream: AsyncStream<any LinkConnection>

    init(channel: any Channel, stream: AsyncStream<any LinkConnection>) {
        self.channel = channel
        self.stream = stream
    }

    /// The bound port (useful after listening on port 0).
    public var port: Int? { channel.localAddress?.port }
    public func connections() -> AsyncStream<any LinkConnection> { stream }
    public func close() { channel.close(promise: nil) }
}

struct TCPDialer: LinkDialer {
    let host: String
    let port: Int

    func connect() async throws -> any LinkConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port).get()
        return try await channel.eventLoop.submit { try TCPConnection.attach(to: channel) }.get()
    }
}

public enum TCPLinkError: Error, Sendable {
    case frameTooLarge(Int)
}

final class TCPConnection: LinkConnection {
    let channel: any Channel
    let stream: AsyncThrowingStream<[UInt8], any Error>
    var mtu: Int { TCPLink.mtu }

    private init(channel: any Channel, stream: AsyncThrowingStream<[UInt8], any Error>) {
        self.channel = channel
        self.stream = stream
    }

    /// Adds the frame decoder to `channel`; call on its event loop.
    static func attach(to channel: any Channel) throws -> TCPConnection {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        try channel.pipeline.syncOperations.addHandler(FrameDecoder(continuation: continuation))
        return TCPConnection(channel: channel, stream: stream)
    }

    func send(_ frame: [UInt8]) async throws {
        guard frame.count <= TCPLink.mtu else { throw TCPLinkError.frameTooLarge(frame.count) }
        var buffer = channel.allocator.buffer(capacity: frame.count + 2)
        buffer.writeInteger(UInt16(frame.count))
        buffer.writeBytes(frame)
        try await channel.writeAndFlush(buffer)
    }

    func inbound() -> AsyncThrowingStream<[UInt8], any Error> { stream }
    func close() { channel.close(promise: nil) }
}

/// Cuts the TCP byte stream back into frames and hands them to the session.
private final class FrameDecoder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private var pending = ByteBuffer()

    init(continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        pending.writeBuffer(&incoming)
        while let length = pending.getInteger(at: pending.readerIndex, as: UInt16.self) {
            guard Int(length) <= TCPLink.mtu else {
                continuation.finish(throwing: TCPLinkError.frameTooLarge(Int(length)))
                context.close(promise: nil)
                return
            }
            guard pending.readableBytes >= 2 + Int(length) else { break }
            pending.moveReaderIndex(forwardBy: 2)
            guard let frame = pending.readBytes(length: Int(length)) else { break }
            continuation.yield(frame)
        }
        pending.discardReadBytes()
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
