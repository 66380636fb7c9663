import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import OpenAPIRuntime
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The command line's transport to the issuer: HTTP/1.1 over SwiftNIO, with TLS through
/// swift-nio-ssl verified as `ServerTrust` says (system roots, a CA file, or a public-key pin).
///
/// Why not URLSession or AsyncHTTPClient: FoundationNetworking's URLSession on Linux cannot
/// take custom trust or a pin, and AsyncHTTPClient takes a `TLSConfiguration` but not a
/// verification callback, so it cannot pin a key either. One small transport does all three,
/// one request per connection (`Connection: close`: a command makes a handful of calls). The
/// app keeps URLSession (its delegate pins on Apple platforms: App/Sources/Adapters).
///
/// Errors: a refused certificate is `ServerTrustError` (nothing was sent); no connection, a
/// timeout, or a connection closed before the answer is a `URLError`, which `IssuerClient`
/// reports as "cannot reach the issuer" (the outcome of a request that was sent is unknown).
public struct HTTPSTransport: ClientTransport {
    public let trust: ServerTrust
    /// Most seconds one request may take, connection and TLS handshake included.
    public let timeout: Duration
    /// Largest answer accepted, in bytes.
    public let maxResponseBytes: Int
    private let context: NIOSSLContext?

    /// Fails with `ServerTrustError.badAuthority` when the CA file holds no certificate.
    public init(trust: ServerTrust = .system, timeout: Duration = .seconds(120), maxResponseBytes: Int = 32 * 1024 * 1024) throws
    {
        self.trust = trust
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        switch trust {
        case .system: break
        case .certificateAuthority(let pem):
            let roots: [NIOSSLCertificate]
            do { roots = try NIOSSLCertificate.fromPEMBytes(pem) } catch {
                throw ServerTrustError.badAuthority(reason: "\(error)")
            }
            guard !roots.isEmpty else { throw ServerTrustError.badAuthority(reason: "it holds no certificate") }
            // Only this authority: the system's roots are not consulted.
            configuration.trustRoots = .certificates(roots)
        case .publicKey:
            // The pin replaces chain and name checks (see `verifyPin`); verification stays on
            // so that the callback runs (with verification off it would never be called).
            configuration.certificateVerification = .noHostnameVerification
        }
        do { context = try NIOSSLContext(configuration: configuration) } catch {
            throw ServerTrustError.badAuthority(reason: "\(error)")
        }
    }

    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = baseURL.host,
            !host.isEmpty
        else {
            throw URLError(
                .unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "\(baseURL.absoluteString) is not an http(s) URL"])
        }
        let secure = scheme == "https"
        if !secure, trust != .system { throw ServerTrustError.notHTTPS(url: baseURL.absoluteString) }
        let port = baseURL.port ?? (secure ? 443 : 80)
        let requestBody: [UInt8]
        if let body { requestBody = try await [UInt8](collecting: body, upTo: 16 * 1024 * 1024) } else { requestBody = [] }
        let head = Self.head(
            request, baseURL: baseURL, host: host, port: port, secure: secure, bodyLength: body == nil ? nil : requestBody.count)
        let exchange = Exchange(
            url: baseURL.absoluteString, host: host, port: port, context: secure ? context : nil, trust: trust,
            maxResponseBytes: maxResponseBytes)
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: (HTTPResponse, HTTPBody?).self) { group in
            group.addTask { try await exchange.run(head: head, body: requestBody) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw URLError(
                    .timedOut, userInfo: [NSLocalizedDescriptionKey: "no answer from \(host):\(port) within \(timeout)"])
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    static func head(
        _ request: HTTPRequest, baseURL: URL, host: String, port: Int, secure: Bool, bodyLength: Int?
    ) -> HTTPRequestHead {
        let basePath = baseURL.path.hasSuffix("/") ? String(baseURL.path.dropLast()) : baseURL.path
        var head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: basePath + (request.path ?? "/"))
        for field in request.headerFields { head.headers.add(name: field.name.rawName, value: field.value) }
        let defaultPort = secure ? 443 : 80
        let hostField = host.contains(":") ? "[\(host)]" : host
        head.headers.replaceOrAdd(name: "Host", value: port == defaultPort ? hostField : "\(hostField):\(port)")
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        if let bodyLength { head.headers.replaceOrAdd(name: "Content-Length", value: String(bodyLength)) }
        return head
    }
}

/// One request on one connection.
private struct Exchange: Sendable {
    let url: String
    let host: String
    let port: Int
    let context: NIOSSLContext?
    let trust: ServerTrust
    let maxResponseBytes: Int

    /// What the pin check saw, for the error message (the handshake error itself only says
    /// that verification failed).
    final class PinOutcome: Sendable {
        let presented = Mutex<ServerKeyPin?>(nil)
    }

    func run(head: HTTPRequestHead, body: [UInt8]) async throws -> (HTTPResponse, HTTPBody?) {
        let outcome = PinOutcome()
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(15))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let context {
                            try channel.pipeline.syncOperations.addHandler(try makeTLSHandler(context, outcome: outcome))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw URLError(
                .cannotConnectToHost,
                userInfo: [NSLocalizedDescriptionKey: "cannot connect to \(host):\(port): \(Self.connectFailure(error))"])
        }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                // One write for the whole request. The server may answer and close (we sent
                // `Connection: close`) as soon as it has the body, so a failed write is kept
                // and only reported if no whole answer arrives.
                var parts: [HTTPClientRequestPart] = [.head(head)]
                if !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                parts.append(.end(nil))
                var writeError: (any Error)?
                do { try await outbound.write(contentsOf: parts) } catch { writeError = error }
                var response: HTTPResponse?
                var collected = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        // An interim 1xx answer is followed by the real one.
                        if head.status.code >= 100 && head.status.code < 200 { continue }
                        response = Self.response(head)
                    case .body(var buffer):
                        guard collected.readableBytes + buffer.readableBytes <= maxResponseBytes else {
                            throw URLError(
                                .dataLengthExceedsMaximum,
                                userInfo: [NSLocalizedDescriptionKey: "the answer is larger than \(maxResponseBytes) bytes"])
                        }
                        collected.writeBuffer(&buffer)
                    case .end:
                        guard let response else { break }
                        return (response, HTTPBody(Array(collected.readableBytesView)))
                    }
                }
                if let writeError { throw writeError }
                throw URLError(
                    .networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: closedMessage(gotHead: response != nil)])
            }
        } catch let error as URLError {
            throw error
        } catch {
            throw classify(error, outcome: outcome)
        }
    }

    private func closedMessage(gotHead: Bool) -> String {
        if gotHead { return "the connection to \(host):\(port) closed in the middle of the answer" }
        // A TLS server answers a plain-HTTP request by closing the connection.
        return context == nil
            ? "\(url) closed the connection without answering; if the server serves HTTPS, use an https:// URL"
            : "\(host):\(port) closed the connection without answering"
    }

    private func makeTLSHandler(_ context: NIOSSLContext, outcome: PinOutcome) throws -> NIOSSLClientHandler {
        // SNI and name checks take a host name; for an IP literal NIOSSL checks the certificate
        // against the connected address instead.
        let name: String? = host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" } ? nil : host
        guard case .publicKey(let pin) = trust else { return try NIOSSLClientHandler(context: context, serverHostname: name) }
        return try NIOSSLClientHandler(context: context, serverHostname: name) { certificates, promise in
            // The leaf's SubjectPublicKeyInfo must hash to the pin; the chain and names are not
            // consulted (the pinned key is the server's identity).
            guard let leaf = certificates.first, let spki = try? leaf.extractPublicKey().toSPKIBytes() else {
                promise.succeed(.failed)
                return
            }
            let presented = ServerKeyPin(subjectPublicKeyInfo: spki)
            outcome.presented.withLock { $0 = presented }
            promise.succeed(presented == pin ? .certificateVerified : .failed)
        }
    }

    /// A failed handshake in words: not trusted, wrong pin, or not TLS at all.
    private func classify(_ error: any Error, outcome: PinOutcome) -> any Error {
        if case .publicKey(let pin) = trust, let presented = outcome.presented.withLock({ $0 }), presented != pin {
            return ServerTrustError.pinMismatch(host: "\(host):\(port)", expected: pin, presented: presented)
        }
        let text = String(describing: error)
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return ServerTrustError.untrusted(host: "\(host):\(port)", reason: "does not name \(host)")
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return ServerTrustError.untrusted(
                host: "\(host):\(port)",
                reason:
                    "does not chain to an authority this wallet trusts, or is expired (for example it is self-signed or from a private CA)"
            )
        }
        if error is NIOSSLError || error is BoringSSLError || text.contains("SSL") {
            return ServerTrustError.protocolMismatch(url: url, reason: "the TLS handshake failed: \(text)")
        }
        if error is HTTPParserError {
            return ServerTrustError.protocolMismatch(url: url, reason: "the answer is not HTTP: \(text)")
        }
        if error is ChannelError || error is IOError {
            return URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "\(host):\(port): \(text)"])
        }
        return error
    }

    /// Why a connection could not be made, in the system's words ("Connection refused"), not
    /// SwiftNIO's nested error values: people read it.
    static func connectFailure(_ error: any Error) -> String {
        func words(_ error: any Error) -> String? {
            if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
            if case .connectTimeout = error as? ChannelError { return "no answer in time" }
            return nil
        }
        if let connection = error as? NIOConnectionError {
            if let reason = connection.connectionErrors.lazy.compactMap({ words($0.error) }).first { return reason }
            if connection.connectionErrors.isEmpty, connection.dnsAError != nil || connection.dnsAAAAError != nil {
                return "the host name does not resolve"
            }
        }
        return words(error) ?? "\(error)"
    }

    static func response(_ head: HTTPResponseHead) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in head.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return HTTPResponse(
            status: .init(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase), headerFields: fields)
    }
}
