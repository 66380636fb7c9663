import Foundation
import Hummingbird
import IssuerCore
import IssuerHTTP
import IssuerTesting
import Logging
import OfflineNotes
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real wallet-server application (the API and the console) on a loopback port, on a fresh
/// database, with an admin and a user account.
struct ConsoleHarness {
    let issuer: Issuer
    let baseURL: URL
    let admin: (id: Int64, email: String)
    let user: (id: Int64, email: String)
    static let password = "correct horse battery"

    /// `clock`: the issuer's clock (sessions expire on it); the real time unless a test moves it.
    static func with(
        _ backend: Backend = .sqlite, settings: HTTPSettings = HTTPSettings(port: 0), clock: TestClock? = nil,
        _ body: (ConsoleHarness) async throws -> Void
    ) async throws {
        let keyring = IssuerKeyring(
            authority: SoftwareSigner(),
            issuing: [
                .init(signer: SoftwareSigner(), validFrom: 0, validUntil: UInt64(Date().timeIntervalSince1970) + 86_400 * 365)
            ])
        let database = try await backend.makeDatabase().database
        defer { database.remove() }
        let issuer = try await Issuer.open(
            database: database, keyring: keyring,
            config: IssuerConfig(
                currency: Currency("EUR")!, maxOfflineHolding: 100_000, devFunding: true, passwordCost: .testing),
            challengeSecret: Array(repeating: 3, count: 32), clock: { clock?.now() ?? UInt64(Date().timeIntervalSince1970) })
        let admin = try await issuer.register(email: "ops@console.test", password: password, role: "admin")
        let user = try await issuer.register(email: "o'neil&co@console.test", password: password)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "console-tests")
        logger.logLevel = .critical
        let app = try IssuerApplication.make(
            issuer: issuer, tokens: AccessTokens(secret: Array(repeating: 9, count: 32)), settings: settings, logger: logger
        ) { continuation.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            try await body(
                ConsoleHarness(
                    issuer: issuer, baseURL: URL(string: "http://127.0.0.1:\(port)")!, admin: (admin, "ops@console.test"),
                    user: (user, "o'neil&co@console.test")))
            group.cancelAll()
        }
    }

    /// A browser of one: keeps the console's cookies, follows no redirect.
    func browser() -> Browser { Browser(baseURL: baseURL) }

    /// A fraud case on record: Alice buys a note and signs it to Bob and, again, to Carol; Bob
    /// redeems first, Carol's redemption conflicts and is paid from Alice's account (frozen).
    @discardableResult
    func makeFraudCase(
        aliceEmail: String = "alice@console.test"
    ) async throws -> (caseID: Int64, alice: Int64, bob: Int64, carol: Int64) {
        let alice = try await issuer.register(email: aliceEmail, password: Self.password)
        let bob = try await issuer.register(email: "bob-\(UUID().uuidString.prefix(6))@console.test", password: Self.password)
        let carol = try await issuer.register(email: "carol-\(UUID().uuidString.prefix(6))@console.test", password: Self.password)
        let (a, b, c) = (SoftwareSigner(), SoftwareSigner(), SoftwareSigner())
        try await issuer.registerKey(account: alice, signer: a)
        try await issuer.registerKey(account: bob, signer: b)
        try await issuer.registerKey(account: carol, signer: c)
        _ = try await issuer.fund(account: alice, amount: 5_000)
        let note = try #require(
            try await issuer.purchase(
                account: alice, walletKey: a.publicKey, amount: 5_000, idempotencyKey: "console-\(UUID().uuidString)"
            ).first)
        let now = UInt64(Date().timeIntervalSince1970)
        func spend(to payee: SoftwareSigner, seed: UInt8) throws -> Chain {
            note.appending(
                try Transfer.sign(
                    input: note.heldRef, outputs: [TransferOutput(owner: payee.publicKey, amount: 5_000)],
                    nonce: Nonce(uncheckedBytes: Array(repeating: seed, count: 16)), createdAt: now, signer: a),
                holding: 0)
        }
        #expect(try await issuer.redeem(account: bob, chains: [try spend(to: b, seed: 1).encoded]) == [.credited(amount: 5_000)])
        guard
            case .conflict(let id, let credited) = try await issuer.redeem(
                account: carol, chains: [try spend(to: c, seed: 2).encoded]
            ).first
        else {
            throw TestSupportError("the second spend opened no fraud case")
        }
        #expect(credited == 5_000)
        return (id, alice, bob, carol)
    }

    /// A restore conflict on record (docs/protocol.md §5.2 rule 5): Dora's wallet buys a note
    /// with its old key; a restored wallet (new key) exchanges it; the old device, not knowing,
    /// pays the same note to Bob, whose redemption is paid from Dora's account (not frozen).
    func makeRestoreConflict() async throws -> (
        caseID: Int64, dora: Int64, bob: Int64, oldKey: PublicKeyBytes, newKey: PublicKeyBytes
    ) {
        let dora = try await issuer.register(email: "dora@console.test", password: Self.password)
        let bob = try await issuer.register(email: "bob@console.test", password: Self.password)
        let (old, restored, b) = (SoftwareSigner(), SoftwareSigner(), SoftwareSigner())
        try await issuer.registerKey(account: dora, signer: old)
        try await issuer.registerKey(account: bob, signer: b)
        _ = try await issuer.fund(account: dora, amount: 3_000)
        let note = try #require(
            try await issuer.purchase(
                account: dora, walletKey: old.publicKey, amount: 3_000, idempotencyKey: "console-\(UUID().uuidString)"
            ).first)
        try await issuer.registerKey(account: dora, signer: restored)
        let exchange = try await issuer.refresh(
            account: dora, walletKey: restored.publicKey, chains: [note.encoded], restore: true)
        #expect(exchange.results == [.credited(amount: 3_000)])
        let paid = note.appending(
            try Transfer.sign(
                input: note.heldRef, outputs: [TransferOutput(owner: b.publicKey, amount: 3_000)],
                nonce: Nonce(uncheckedBytes: Array(repeating: 7, count: 16)), createdAt: UInt64(Date().timeIntervalSince1970),
                signer: old),
            holding: 0)
        guard case .conflict(let id, 3_000) = try await issuer.redeem(account: bob, chains: [paid.encoded]).first else {
            throw TestSupportError("the old device's payment opened no restore conflict")
        }
        return (id, dora, bob, old.publicKey, restored.publicKey)
    }
}

/// Answers as the tests look at them.
struct Page {
    let status: Int
    let headers: [String: String]
    let body: String
    /// Every Set-Cookie line (URLSession on Linux joins repeated headers with ", ").
    let setCookies: [String]

    var location: String? { headers["location"] }
}

/// HTTP through URLSession with redirects not followed and cookies kept by hand, so the tests
/// see every Set-Cookie and every 303 as a browser receives them.
final class Browser: @unchecked Sendable {
    let baseURL: URL
    var cookies: [String: String] = [:]
    let session: URLSession

    final class NoRedirects: NSObject, URLSessionTaskDelegate {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Page {
        try await send("GET", path, body: nil, headers: headers)
    }

    /// Posts a form (URL-encoded); `origin` adds the Origin header a browser would send.
    func post(_ path: String, _ fields: [(String, String)], headers: [String: String] = [:]) async throws -> Page {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        var headers = headers
        headers["Content-Type"] = headers["Content-Type"] ?? "application/x-www-form-urlencoded"
        return try await send("POST", path, body: Data(body.utf8), headers: headers)
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    func send(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> Page {
        var request = URLRequest(url: URL(string: path, relativeTo: baseURL)!)
        request.httpMethod = method
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        if !cookies.isEmpty {
            request.setValue(
                cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "), forHTTPHeaderField: "Cookie")
        }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (k, v) in http.allHeaderFields { fields[String(describing: k).lowercased()] = String(describing: v) }
        let setCookies = Self.splitSetCookie(fields["set-cookie"])
        for line in setCookies {
            let pair = line.split(separator: ";").first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { continue }
            if line.contains("Max-Age=0") { cookies[parts[0]] = nil } else { cookies[parts[0]] = parts[1] }
        }
        return Page(status: http.statusCode, headers: fields, body: String(decoding: data, as: UTF8.self), setCookies: setCookies)
    }

    /// Set-Cookie lines joined with ", " split back (our cookies hold no comma: no Expires).
    static func splitSetCookie(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.components(separatedBy: ", ").filter { !$0.isEmpty }
    }

    /// The value of the hidden `csrf` field of the page's first form.
    static func csrf(in html: String) -> String? {
        guard let r = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        let rest = html[r.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Logs in through the form as a browser does: GET the form, POST it with its token.
    func logIn(_ email: String, password: String = ConsoleHarness.password) async throws -> Page {
        let form = try await get("/console/login")
        let token = try #require(Self.csrf(in: form.body))
        return try await post("/console/login", [("csrf", token), ("email", email), ("password", password)])
    }
}
