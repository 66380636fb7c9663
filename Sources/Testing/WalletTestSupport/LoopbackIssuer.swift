import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore
import IssuerHTTP
import IssuerTesting
import Logging
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import TestSupport
import WalletCore
import WalletFlows
import WalletSync

/// A real issuer server (`IssuerHTTP` over SQLite, development funding on) on a loopback port,
/// for the tests of the flows and the app's models. Test support: not part of any product.
public struct LoopbackIssuer: Sendable {
    public let issuer: Issuer
    public let baseURL: URL
    public let dir: String

    /// Starts a server with development funding, runs `body`, stops the server.
    /// `refreshReuseWindow`: seconds a just-rotated refresh token still works (0: at once dead).
    /// `backend`: the server's database (`Backend.available` lists what this run has); it
    /// removes itself (SQLite file, PostgreSQL schema) once the server is gone.
    /// `body` runs on the caller's actor (`isolation`), so `@MainActor` tests drive screen models in it.
    /// `escrow`: the server's escrow settlement (`StandInEscrow` in tests); nil answers its routes
    /// `escrow_not_configured`, as a server without --escrow-rpc.
    public static func with(
        _ backend: Backend = .sqlite, refreshReuseWindow: Int64 = 60, escrow: (any EscrowMonitor)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (LoopbackIssuer) async throws -> Void
    ) async throws {
        // The test's wallets and files live here; removed when the test is over.
        let scratch = try TemporaryDirectory("flows")
        defer { withExtendedLifetime(scratch) {} }
        let dir = scratch.path
        let keyring = IssuerKeyring(
            authority: SoftwareSigner(),
            issuing: [
                .init(signer: SoftwareSigner(), validFrom: 0, validUntil: UInt64(Date().timeIntervalSince1970) + 86_400 * 365)
            ])
        var config = IssuerConfig(
            currency: Currency("EUR")!, maxOfflineHolding: 100_000, devFunding: true, passwordCost: .testing)
        config.refreshReuseWindow = refreshReuseWindow
        // Removed when the test is over, even if a connection still winding down holds it.
        let database = try await backend.makeDatabase().database
        defer { database.remove() }
        let issuer = try await Issuer.open(
            database: database, keyring: keyring, config: config,
            challengeSecret: Array(repeating: 3, count: 32))
        let tokens = AccessTokens(secret: Array(repeating: 9, count: 32))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "flows-tests")
        logger.logLevel = .critical  // the server is cancelled at the end of every test, on purpose
        let app = try IssuerApplication.make(
            issuer: issuer, tokens: tokens, settings: HTTPSettings(port: 0), metrics: IssuerMetrics(), escrow: escrow,
            logger: logger
        ) { continuation.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            try await body(LoopbackIssuer(issuer: issuer, baseURL: URL(string: "http://127.0.0.1:\(port)")!, dir: dir))
            group.cancelAll()
        }
    }

    /// A fresh wallet in its own directory.
    public func wallet(_ name: String) throws -> (wallet: Wallet, directory: String) {
        let directory = dir + "/" + name + "-" + UUID().uuidString.prefix(6)
        return (try Wallet.create(directory: directory, keyCost: .testing), directory)
    }

    /// A wallet logged in to a new account funded with `funds`, its login in `store`.
    public func loggedIn(
        _ name: String, funds: UInt64 = 0, store: MemoryFlowStore = MemoryFlowStore(),
        makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) }
    )
        async throws -> (session: WalletSession, store: MemoryFlowStore)
    {
        let (wallet, _) = try wallet(name)
        let (session, _) = try await WalletSession.logIn(
            wallet: wallet, server: baseURL.absoluteString, email: "\(name)-\(UUID().uuidString.prefix(6))@flows.test",
            password: "correct horse battery", register: true, credentials: store, flowState: store, makeClient: makeClient)
        if funds > 0 { try await session.client.fund(funds) }
        return (session, store)
    }
}

/// The in-memory credential and flow-state store (the test double; it does not ship).
/// Counts saves so tests can see a token persisted before it is used.
public final class MemoryFlowStore: CredentialStore, FlowStateStore, Sendable {
    private let state = Mutex<(login: StoredLogin, flow: FlowState, loginSaves: Int)>((StoredLogin(), FlowState(), 0))

    public init(login: StoredLogin = StoredLogin(), flow: FlowState = FlowState()) {
        state.withLock { $0 = (login, flow, 0) }
    }

    public func loadLogin() throws -> StoredLogin { state.withLock { $0.login } }
    public func saveLogin(_ login: StoredLogin) throws {
        state.withLock {
            $0.login = login
            $0.loginSaves += 1
        }
    }
    public func loadFlowState() throws -> FlowState { state.withLock { $0.flow } }
    public func saveFlowState(_ flow: FlowState) throws { state.withLock { $0.flow = flow } }
    public var loginSaves: Int { state.withLock { $0.loginSaves } }
}

/// A transport that forwards every request to the server but loses the answer to the ones
/// `loses` picks (the request was processed; the client sees a dropped connection) — a crash
/// or a cut network between sending and hearing back. The ones `unavailable` picks are not sent
/// at all and answered 503 (an overloaded issuer or proxy).
public struct LosingTransport: ClientTransport {
    let base = URLSessionTransport()
    let loses: @Sendable (String) -> Bool
    let unavailable: @Sendable (String) -> Bool

    public init(
        loses: @escaping @Sendable (String) -> Bool, unavailable: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.loses = loses
        self.unavailable = unavailable
    }

    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if unavailable(operationID) {
            let problem =
                #"{"type":"about:blank","title":"Service Unavailable","status":503,"code":"unavailable","detail":"The issuer is busy; try again shortly."}"#
            return (
                HTTPResponse(status: .serviceUnavailable, headerFields: [.contentType: "application/problem+json"]),
                HTTPBody(problem)
            )
        }
        let answer = try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
        if loses(operationID) { throw URLError(.networkConnectionLost) }
        return answer
    }
}
