import Foundation
import Hummingbird
import IssuerCore
import IssuerHTTP
import Logging
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import SQLStore
import Synchronization
import Testing
import WalletAPI
import WalletCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The database under the HTTP tests: SQLite always, PostgreSQL when OW_TEST_POSTGRES_URL is set.
enum HTTPBackend: String, CaseIterable, Sendable {
    case sqlite, postgres

    static var available: [HTTPBackend] {
        ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    func database(dir: String) async throws -> any SQLDatabase {
        switch self {
        case .sqlite:
            return try SQLiteStore(path: dir + "/server.sqlite")
        case .postgres:
            let url = try #require(ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"])
            let schema = "h_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let admin = try PostgresStore(url: url, maxConnections: 1)
            try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
            await admin.close()
            return try PostgresStore(url: url + "?search_path=\(schema)", maxConnections: 8)
        }
    }
}

/// A real issuer server on a loopback port, on a fresh database.
struct HTTPHarness {
    let issuer: Issuer
    let baseURL: URL
    let tokens: AccessTokens

    /// Starts a server, runs `body`, stops the server.
    static func with(
        _ backend: HTTPBackend = .sqlite, settings: HTTPSettings = HTTPSettings(port: 0), metrics: IssuerMetrics = IssuerMetrics(),
        clock: @escaping @Sendable () -> Timestamp = { Timestamp(Date().timeIntervalSince1970) },
        _ body: (HTTPHarness) async throws -> Void
    ) async throws {
        let dir = NSTemporaryDirectory() + "http-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let keyring = IssuerKeyring(
            authority: SoftwareSigner(),
            issuing: [.init(signer: SoftwareSigner(), validFrom: 0, validUntil: UInt64(Date().timeIntervalSince1970) + 86_400 * 365)])
        let issuer = try await Issuer.open(
            database: try await backend.database(dir: dir), keyring: keyring,
            config: IssuerConfig(currency: Currency("EUR")!, maxOfflineHolding: 100_000, devFunding: true, passwordCost: .testing),
            challengeSecret: Array(repeating: 3, count: 32), clock: clock)
        let tokens = AccessTokens(secret: Array(repeating: 9, count: 32))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "http-tests")
        logger.logLevel = .critical  // the server is cancelled at the end of every test, on purpose
        let app = try IssuerApplication.make(issuer: issuer, tokens: tokens, settings: settings, metrics: metrics, logger: logger) { continuation.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            try await body(HTTPHarness(issuer: issuer, baseURL: URL(string: "http://127.0.0.1:\(port)")!, tokens: tokens))
            group.cancelAll()
        }
    }

    func client(token: String? = nil) -> Client {
        Client(serverURL: baseURL, transport: URLSessionTransport(), middlewares: [BearerToken { token }])
    }

    /// Registers and logs in a user; returns its token and a client using it.
    func user(_ name: String) async throws -> (client: Client, tokens: Components.Schemas.Tokens, email: String) {
        let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com"
        let anonymous = client()
        _ = try await anonymous.register(body: .json(.init(email: email, password: "correct horse battery"))).created
        let tokens = try await anonymous.login(body: .json(.init(email: email, password: "correct horse battery"))).ok.body.json
        return (client(token: tokens.accessToken), tokens, email)
    }

    /// A wallet whose key is registered (with proof of possession) to the user.
    func wallet(for client: Client, trusting config: Components.Schemas.ClientConfig) async throws -> Wallet {
        let wallet = try Wallet.create(directory: NSTemporaryDirectory() + "http-wallet-" + UUID().uuidString, keyCost: .testing)
        try wallet.installTrust(
            authority: PublicKeyBytes(bytes: Base64URL.decode(config.authority)!)!, keyset: Base64URL.decode(config.keyset)!,
            limits: Base64URL.decode(config.limits)!)
        let challenge = try await client.keyChallenge().ok.body.json
        let raw = Base64URL.decode(challenge.challenge)!
        let message = KeyRegistration.message(challenge: raw, account: challenge.accountId)
        let signature = try wallet.identity.signer.sign(message)
        _ = try await client.registerWalletKey(body: .json(.init(
            publicKey: Base64URL.encode(wallet.publicKey.bytes), challenge: challenge.challenge, signature: Base64URL.encode(signature)))).noContent
        return wallet
    }
}

/// Raw HTTP for the cases the typed client cannot express (bad JSON, huge bodies, headers).
func rawRequest(_ url: URL, method: String = "POST", token: String? = nil, body: Data?, contentType: String = "application/json")
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
