import Hummingbird
import IssuerCore
import Logging
import OpenAPIHummingbird

/// Settings of the HTTP front.
public struct HTTPSettings: Sendable {
    public var host: String
    public var port: Int
    public var maxBodyBytes: Int
    public var writesPerMinutePerIP: Int
    public var loginsPerMinutePerIP: Int
    public var account: AccountLimits

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
        logger: Logger = Logger(label: "wallet-server"),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = Router(context: IssuerRequestContext.self)
        router.middlewares.add(ProblemMiddleware<IssuerRequestContext>())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(MetricsMiddleware<IssuerRequestContext>())
        router.middlewares.add(BodyLimitMiddleware<IssuerRequestContext>(maxBytes: settings.maxBodyBytes))
        router.middlewares.add(RateLimitMiddleware(issuer: issuer, writesPerMinutePerIP: settings.writesPerMinutePerIP, loginsPerMinutePerIP: settings.loginsPerMinutePerIP))
        router.middlewares.add(AuthMiddleware(tokens: tokens))
        let api = IssuerAPI(issuer: issuer, tokens: tokens, metrics: metrics, limits: settings.account)
        try api.registerHandlers(on: router)
        return Application(
            router: router, configuration: .init(address: .hostname(settings.host, port: settings.port)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }
}
