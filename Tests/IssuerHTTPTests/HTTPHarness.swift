import Foundation
import Hummingbird
import IssuerCore
import IssuerHTTP
import IssuerTesting
import Logging
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import SQLStore
import Synchronization
import TestSupport
import Testing
import WalletAPI
import WalletCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The database under the HTTP tests: SQLite always, PostgreSQL when OW_TEST_POSTGRES_URL is set
/// (the issuer tests' `Backend`, under the name these tests know it by).
typealias HTTPBackend = Backend

/// A real issuer server on a loopback port, on a fresh database.
struct HTTPHarness {
    let issuer: Issuer
    let baseURL: URL
    let tokens: AccessTokens
    /// Where the test's wallets live; removed when the test is over.
    let scratch: TemporaryDirectory

    /// Starts a server, runs `body`, stops the server.
    static func with(
        _ backend: HTTPBackend = .sqlite, settings: HTTPSettings = HTTPSettings(port: 0),
        metrics: IssuerMetrics = IssuerMetrics(),
        clock: @escaping @Sendable () -> Timestamp = { Timestamp(Date().timeIntervalSince1970) },
        escrow: (any EscrowMonitor)? = nil,
        _ body: (HTTPHarness) async throws -> Void
    ) async throws {
        let scratch = try TemporaryDirectory("http")
        let keyring = IssuerKeyring(
            authority: SoftwareSigner(),
            issuing: [
                .init(signer: SoftwareSigner(), validFrom: 0, validUntil: UInt64(Date().timeIntervalSince1970) + 86_400 * 365)
            ])
        // Removed when the test is over, even if a connection still winding down holds it.
        let database = try await backend.makeDatabase().database
        defer { database.remove() }
        let issuer = try await Issuer.open(
            database: database, keyring: keyring,
            config: IssuerConfig(
                currency: Currency("EUR")!, maxOfflineHolding: 100_000, devFunding: true, passwordCost: .testing),
            challengeSecret: Array(repeating: 3, count: 32), clock: clock)
        let tokens = AccessTokens(secret: Array(repeating: 9, count: 32))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "http-tests")
        logger.logLevel = .critical  // the server is cancelled at the end of every test, on purpose
        let app = try IssuerApplication.make(
            issuer: issuer, tokens: tokens, settings: settings, metrics: metrics, escrow: escrow, logger: logger
        ) { continuation.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            try await body(
                HTTPHarness(issuer: issuer, baseURL: URL(string: "http://127.0.0.1:\(port)")!, tokens: tokens, scratch: scratch))
            group.cancelAll()
        }
    }

    func client(token: String? = nil) -> Client {
        Client(serverURL: baseURL, transport: URLSessionTransport(), middlewares: [BearerToken { token }])
    }

    /// Registers and logs in a user; returns its token and a client using it.
    func user(_ name: String) async throws -> (client: Client, tokens: Components.Schemas.Tokens, email: String) {
        let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com"
        let tokens = try await client().registerAndLogIn(email: email)
        return (client(token: tokens.accessToken), tokens, email)
    }

    /// Registers an admin and logs it in: its access token and account id.
    func adminToken() async throws -> (token: String, id: Int64) {
        let email = "root-\(UUID().uuidString.prefix(6))@example.com"
        let id = try await issuer.register(email: email, password: "admin password 123", role: "admin")
        let tokens = try await client().login(body: .json(.init(email: email, password: "admin password 123"))).ok.body.json
        return (tokens.accessToken, id)
    }

    /// A wallet whose key is registered (with proof of possession) to the user.
    func wallet(for client: Client, trusting config: Components.Schemas.ClientConfig) async throws -> Wallet {
        let wallet = try Wallet.create(directory: scratch.path("wallet-" + UUID().uuidString), keyCost: .testing)
        try wallet.installTrust(
            authority: PublicKeyBytes(bytes: Base64URL.decode(config.authority)!)!, keyset: Base64URL.decode(config.keyset)!,
            limits: Base64URL.decode(config.limits)!)
        try await client.registerKey(of: wallet.identity.signer)
        return wallet
    }
}

/// Raw HTTP for the cases the typed client cannot express (bad JSON, huge bodies, headers).
func rawRequest(
    _ url: URL, method: String = "POST", token: String? = nil, body: Data?, contentType: String = "application/json"
)
    async throws -> (status: Int, headers: [String: String], json: [String: Any])
{
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as! HTTPURLResponse
    var headers: [String: String] = [:]
    for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
    let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return (http.statusCode, headers, json)
}
