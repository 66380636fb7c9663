import Foundation
import IssuerHTTP
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Slow, silent and too many connections on real loopback sockets (docs/server.md,
/// "Connections"). Timeouts are short here so each case ends quickly; the waits below are
/// liveness bounds (what must happen eventually), never measurements of speed.
@Suite struct ConnectionLimitTests {
    /// Every limit generous but the ones a test sets.
    static func settings(_ change: (inout ConnectionLimits) -> Void) -> HTTPSettings {
        var settings = HTTPSettings(port: 0)
        var limits = ConnectionLimits(
            idleTimeout: .seconds(60), headerTimeout: .seconds(60), bodyTimeout: .seconds(60), maxConnections: 1_000,
            maxConnectionsPerClient: 1_000)
        change(&limits)
        settings.connections = limits
        return settings
    }

    static let health = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

    /// More silent sockets than the global limit: the server holds at most the limit of them
    /// (the rest are closed at once, not queued), and `/health` is still answered, taking the
    /// place of the oldest silent one.
    @Test func silentSocketsBeyondTheLimitDoNotStarveHealth() async throws {
        try await HTTPHarness.with(settings: Self.settings { $0.maxConnections = 8 }) { h in
            let port = try #require(h.baseURL.port)
            let silent = try (0..<20).map { _ in try LoopbackSocket(port: port) }
            let answer = await offPool { () -> String in
                guard let socket = try? LoopbackSocket(port: port), socket.send(Self.health) else { return "" }
                return socket.waitForClose(within: .seconds(20)).received
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            // 20 opened, at most 8 held; /health took one more place.
            let closed = await offPool { Self.closedCount(silent, atLeast: 13) }
            #expect(closed >= 13, "only \(closed) of 20 silent sockets were closed with a limit of 8")
        }
    }

    /// A kept-alive connection that sends nothing after its response is closed.
    @Test func idleKeptAliveConnectionIsClosed() async throws {
        try await HTTPHarness.with(settings: Self.settings { $0.idleTimeout = .milliseconds(300) }) { h in
            let port = try #require(h.baseURL.port)
            let outcome = await offPool { () -> (sent: Bool, closed: Bool, received: String) in
                guard let socket = try? LoopbackSocket(port: port) else { return (false, false, "") }
                let sent = socket.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                let wait = socket.waitForClose(within: .seconds(20))
                return (sent, wait.closed, wait.received)
            }
            #expect(outcome.sent)
            #expect(outcome.received.hasPrefix("HTTP/1.1 200"), "the request itself is answered: \(outcome.received)")
            #expect(outcome.closed, "an idle kept-alive connection stayed open")
        }
    }

    /// Slowloris: a head trickled a byte at a time is closed before it is complete.
    @Test func headTrickledSlowerThanTheHeaderTimeoutIsClosed() async throws {
        try await HTTPHarness.with(settings: Self.settings { $0.headerTimeout = .milliseconds(500) }) { h in
            let port = try #require(h.baseURL.port)
            let outcome = await offPool { () -> (closed: Bool, received: String) in
                guard let socket = try? LoopbackSocket(port: port) else { return (false, "") }
                // 100 header bytes at one per 100 ms: never a complete head.
                for byte in "GET /health HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Pad: y\r\n", count: 7) {
                    guard socket.send(String(byte)) else { return (true, "") }
                    let wait = socket.waitForClose(within: .milliseconds(100))
                    if wait.closed { return (true, wait.received) }
                }
                return (false, "")
            }
            #expect(outcome.closed, "a head trickled for 10 s was still being read")
            #expect(!outcome.received.contains("200"), "\(outcome.received)")
        }
    }

    /// A body sent slower than the body timeout allows is not taken: the connection is closed
    /// without the request being served.
    @Test func bodySentSlowerThanTheBodyTimeoutIsRefused() async throws {
        try await HTTPHarness.with(settings: Self.settings { $0.bodyTimeout = .milliseconds(500) }) { h in
            let port = try #require(h.baseURL.port)
            let body = #"{"email":"slow@example.com","password":"correct horse battery"}"#
            let outcome = await offPool { () -> (closed: Bool, received: String) in
                guard let socket = try? LoopbackSocket(port: port),
                    socket.send(
                        "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                    )
                else { return (false, "") }
                for byte in body {
                    guard socket.send(String(byte)) else { return (true, "") }
                    let wait = socket.waitForClose(within: .milliseconds(100))
                    if wait.closed { return (true, wait.received) }
                }
                return (false, "")
            }
            #expect(outcome.closed, "a body trickled for 6 s was still being read")
            #expect(outcome.received.isEmpty, "the trickled request was answered: \(outcome.received)")
        }
    }

    /// One client address holds at most its cap: one more connection takes the place of its
    /// oldest silent one (which one is oldest depends on the order the server's event loops
    /// admit them), so its own `/health` is still answered; another address is not affected.
    @Test func oneClientIsCappedAndOthersAreNot() async throws {
        try await HTTPHarness.with(settings: Self.settings { $0.maxConnectionsPerClient = 3 }) { h in
            let port = try #require(h.baseURL.port)
            let opened = try (0..<4).map { _ in try LoopbackSocket(port: port) }
            let outcome = await offPool { () -> (closedBefore: Int, own: String, closedAfter: Int, other: String) in
                let closedBefore = Self.closedCount(opened, atLeast: 1)
                guard let own = try? LoopbackSocket(port: port), own.send(Self.health) else { return (closedBefore, "", 0, "") }
                let ownAnswer = own.waitForClose(within: .seconds(20)).received
                let closedAfter = Self.closedCount(opened, atLeast: 2)
                #if os(Linux)
                // All of 127.0.0.0/8 is loopback on Linux: another client address.
                guard let other = try? LoopbackSocket(port: port, from: "127.0.0.2"), other.send(Self.health) else {
                    return (closedBefore, ownAnswer, closedAfter, "")
                }
                return (closedBefore, ownAnswer, closedAfter, other.waitForClose(within: .seconds(20)).received)
                #else
                return (closedBefore, ownAnswer, closedAfter, "HTTP/1.1 200")
                #endif
            }
            #expect(
                outcome.closedBefore == 1,
                "\(outcome.closedBefore) of 4 silent connections from one address were closed with a cap of 3")
            #expect(outcome.own.hasPrefix("HTTP/1.1 200"), "the capped address's own request was not served: \(outcome.own)")
            #expect(outcome.closedAfter == 2, "\(outcome.closedAfter) of 4 closed after one more connection from the address")
            #expect(outcome.other.hasPrefix("HTTP/1.1 200"), "another address was not served: \(outcome.other)")
        }
    }

    /// How many of `sockets` the server has closed, once at least `expected` are or after a
    /// liveness bound; then a moment more for a surplus closure to show.
    static func closedCount(_ sockets: [LoopbackSocket], atLeast expected: Int) -> Int {
        var closed = Set<Int>()
        let deadline = ContinuousClock.now + .seconds(10)
        func look() {
            for (i, socket) in sockets.enumerated() where !closed.contains(i) && socket.waitForClose(within: .zero).closed {
                closed.insert(i)
            }
        }
        repeat {
            look()
            if closed.count >= expected { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while ContinuousClock.now < deadline
        Thread.sleep(forTimeInterval: 0.3)
        look()
        return closed.count
    }

    @Test func defaultLimitLeavesDescriptorsForTheDatabase() {
        #expect(ConnectionLimits.defaultMaxConnections(descriptors: 256) == 192)
        #expect(ConnectionLimits.defaultMaxConnections(descriptors: 1_024) == 896)
        #expect(ConnectionLimits.defaultMaxConnections(descriptors: 1 << 20) == ConnectionLimits.defaultCeiling)
        #expect(ConnectionLimits.defaultMaxConnections(descriptors: nil) == ConnectionLimits.defaultCeiling)
    }
}

/// Runs blocking socket work on a thread of its own, off Swift's cooperative pool, which the
/// server under test needs to answer.
func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

#if canImport(Glibc)
private let systemSend = Glibc.send
private let systemClose = Glibc.close
#else
private let systemSend = Darwin.send
private let systemClose = Darwin.close
#endif

/// A blocking TCP client socket on loopback, closed when released.
final class LoopbackSocket: @unchecked Sendable {  // one test thread uses it at a time
    struct Failure: Error, CustomStringConvertible { let description: String }

    private var fd: Int32

    init(port: Int, from source: String? = nil) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if let source {
            var local = Self.address("\(source)", port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                _ = systemClose(fd)
                throw Failure(description: "bind \(source): errno \(errno)")
            }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            _ = systemClose(fd)
            throw Failure(description: "connect: errno \(errno)")
        }
    }

    deinit { close() }

    /// Closes the socket (again is a no-op).
    func close() {
        guard fd >= 0 else { return }
        _ = systemClose(fd)
        fd = -1
    }

    private static func address(_ ip: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, ip, &address.sin_addr)
        return address
    }

    /// Sends `text`; false if the server has closed the connection.
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        return bytes.withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count, flags) } == bytes.count
    }

    /// Reads until the server closes the connection or `limit` passes: what arrived, and
    /// whether the server closed it.
    func waitForClose(within limit: Duration) -> (closed: Bool, received: String) {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(
                0, Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else { return (false, String(decoding: received, as: UTF8.self)) }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (true, String(decoding: received, as: UTF8.self)) }
            received += buffer[0..<n]
        }
    }
}
