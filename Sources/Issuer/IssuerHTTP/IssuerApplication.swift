import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import IssuerConsole
import IssuerCore
import Logging
import Metrics
import NIOCore
import NIOSSL
import OpenAPIHummingbird
import Prometheus

/// Settings of the HTTP front.
public struct HTTPSettings: Sendable {
    public var host: String
    public var port: Int
    public var maxBodyBytes: Int
    public var writesPerMinutePerIP: Int
    public var loginsPerMinutePerIP: Int
    public var account: AccountLimits
    /// Mark the operator console's cookies `Secure` although this process serves plain HTTP:
    /// it sits behind a TLS proxy (`wallet-server --console-secure-cookies`). With `tls` they are anyway.
    public var consoleSecureCookies = false
    /// Timeouts and connection caps (docs/server.md, "Connections").
    public var connections = ConnectionLimits()

    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 256 * 1024, writesPerMinutePerIP: Int = 6_000,
        loginsPerMinutePerIP: Int = 60, account: AccountLimits = .init()
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.writesPerMinutePerIP = writesPerMinutePerIP
        self.loginsPerMinutePerIP = loginsPerMinutePerIP
        self.account = account
    }
}

/// Builds the Hummingbird application serving the issuer API.
public enum IssuerApplication {
    public static func make(
        issuer: Issuer, tokens: AccessTokens, settings: HTTPSettings, metrics: IssuerMetrics = IssuerMetrics(),
        escrow: (any EscrowMonitor)? = nil, logger: Logger = Logger(label: "wallet-server"), tls: TLSConfiguration? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let api = IssuerAPI(issuer: issuer, tokens: tokens, metrics: metrics, limits: settings.account, escrow: escrow)
        let routes = RouteTable()
        try api.registerHandlers(on: routes)
        routes.add(.get, "/openapi.yaml")

        let router = Router(context: IssuerRequestContext.self)
        // Metrics first, so it sees every answer as the client does (problems included) and
        // labels it by its real status; ProblemMiddleware turns every error into a response.
        router.middlewares.add(MetricsMiddleware<IssuerRequestContext>())
        router.middlewares.add(ProblemMiddleware<IssuerRequestContext>())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        // The operator console (docs/server.md): HTML for admins under /console, mounted before
        // the API's body, JSON, rate-limit and token middlewares, which it does on its own terms
        // (form bodies, the same rate-limit buckets, session cookies); its errors are pages.
        try OperatorConsole(
            issuer: issuer, escrow: escrow,
            settings: ConsoleSettings(
                secureCookies: tls != nil || settings.consoleSecureCookies, loginsPerMinutePerIP: settings.loginsPerMinutePerIP,
                writesPerMinutePerIP: settings.writesPerMinutePerIP, writesPerMinutePerAccount: settings.account.writesPerMinute)
        ).mount(on: router)
        // A wrong method is refused before the body is read, rate limits counted or tokens checked.
        routes.installMethodNotAllowed(on: router)
        router.middlewares.add(BodyLimitMiddleware<IssuerRequestContext>(maxBytes: settings.maxBodyBytes))
        router.middlewares.add(StrictJSONMiddleware<IssuerRequestContext>(maxBytes: settings.maxBodyBytes))
        router.middlewares.add(
            RateLimitMiddleware(
                issuer: issuer, writesPerMinutePerIP: settings.writesPerMinutePerIP,
                loginsPerMinutePerIP: settings.loginsPerMinutePerIP))
        router.middlewares.add(AuthMiddleware(tokens: tokens))
        routes.installHandlers(on: router)
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: OpenAPIDocument.mediaType],
                body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        }
        // HTTPS when a TLS configuration is given (wallet-server --tls-cert/--tls-key), else plain
        // HTTP (behind a TLS proxy, or on loopback in development and tests).
        return Application(
            router: router, server: guarded(settings.connections, tls: tls),
            configuration: .init(address: .hostname(settings.host, port: settings.port)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }
}

extension IssuerApplication {
    /// A listener that serves only `GET /metrics`, without a token, for a Prometheus scraper
    /// (`wallet-server --metrics-address`). The API's own `/metrics` needs an admin token;
    /// this one is for a loopback or private address that only the scraper reaches.
    public static func makeMetricsListener(
        issuer: Issuer, tokens: AccessTokens, metrics: IssuerMetrics, escrow: (any EscrowMonitor)? = nil, host: String, port: Int,
        logger: Logger = Logger(label: "wallet-server"), onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let api = IssuerAPI(issuer: issuer, tokens: tokens, metrics: metrics, limits: AccountLimits(), escrow: escrow)
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: try await api.renderMetrics())))
        }
        // A scraper needs a connection or two; the default timeouts.
        let limits = ConnectionLimits(maxConnections: 16, maxConnectionsPerClient: 16)
        return Application(
            router: router, server: guarded(limits, tls: nil), configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// HTTP/1 (in TLS when `tls` is given) with every connection admitted through a registry
    /// and timed (ConnectionGuard.swift).
    static func guarded(_ limits: ConnectionLimits, tls: TLSConfiguration?) -> HTTPServerBuilder {
        let registry = ConnectionRegistry(limits: limits)
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [
            RequestDeadlineHandler(limits: limits, registry: registry)
        ])
        return HTTPServerBuilder { responder -> any ServerChildChannel in
            let plain = HTTP1Channel(responder: responder, configuration: http1)
            if let tls {
                return GuardedChildChannel(base: try TLSChannel(plain, tlsConfiguration: tls), registry: registry)
            }
            return GuardedChildChannel(base: plain, registry: registry)
        }
    }
}

extension IssuerMetrics {
    /// Makes this registry the process's swift-metrics backend, so Hummingbird's request
    /// counters and durations (`hb_requests`, `http_server_request_duration`,
    /// labelled by route, method and status) are served by `/metrics` too. Once per process:
    /// swift-metrics refuses a second bootstrap.
    public func bootstrapSwiftMetrics() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }
}
