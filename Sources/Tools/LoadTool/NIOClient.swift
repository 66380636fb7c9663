import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal keep-alive HTTP/1.1 client for the load test: one connection, one request at a
/// time. Foundation's URLSession on Linux costs far more CPU per request than the server does,
/// and it shares the machine with the server, so it would measure itself.
struct NIOHTTPClient {
    typealias Channel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    static func withConnection<T: Sendable>(
        host: String, port: Int, _ body: (Requester) async throws -> T
    ) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try Channel(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            return try await body(Requester(host: host, outbound: outbound, next: { try await iterator.next() }))
        }
    }

    struct Requester {
        let host: String
        let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
        let next: () async throws -> HTTPClientResponsePart?

        /// POSTs JSON and returns the status and body.
        func post(_ path: String, json: [UInt8], token: String) async throws -> (status: Int, body: [UInt8]) {
            try await send(.POST, path, json: json, token: token)
        }

        /// Sends one request (a JSON body when `json` is given) and returns the status and body.
        func send(
            _ method: HTTPMethod, _ path: String, json: [UInt8]?, token: String?, headers extra: [(String, String)] = []
        )
            async throws -> (status: Int, body: [UInt8])
        {
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: host)
            head.headers.add(name: "Accept", value: "application/json")
            if let token { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
            for (name, value) in extra { head.headers.add(name: name, value: value) }
            var parts: [HTTPClientRequestPart] = []
            if let json {
                head.headers.add(name: "Content-Type", value: "application/json")
                head.headers.add(name: "Content-Length", value: String(json.count))
                parts = [.head(head), .body(.byteBuffer(ByteBuffer(bytes: json))), .end(nil)]
            } else {
                parts = [.head(head), .end(nil)]
            }
            try await outbound.write(contentsOf: parts)
            var status = 0
            var body: [UInt8] = []
            while let part = try await next() {
                switch part {
                case .head(let h): status = Int(h.status.code)
                case .body(let b): body += b.readableBytesView
                case .end: return (status, body)
                }
            }
            throw NIOHTTPClientError.connectionClosed
        }
    }
}

enum NIOHTTPClientError: Error { case connectionClosed }
