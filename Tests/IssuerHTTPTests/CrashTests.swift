import Foundation
import IssuerCore
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import SQLStore
import Testing
import WalletAPI
import WalletCore
import WalletSync

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `wallet-server` process, killed with SIGKILL in the middle of concurrent value-moving
/// requests, restarted on the same database: the books stay balanced, and retrying every
/// request with its idempotency key charges each purchase exactly once (DESIGN §2.3).
@Suite struct CrashTests {
    /// The server binary, built beside this test bundle by `swift build --build-tests`.
    static var serverBinary: URL? {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("wallet-server")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// A child process; only the test's own task and its killer task touch it.
    final class Server: @unchecked Sendable {
        let process = Process()
        let port: Int
        init(binary: URL, dir: String, port: Int, postgres: String? = nil) throws {
            self.port = port
            process.executableURL = binary
            process.arguments = ["serve", "--port", String(port), "--database", dir + "/server.sqlite", "--keys", dir + "/keys", "--dev-funding",
                                 "--log-level", "error", "--max-offline-holding", "100000000"] + (postgres.map { ["--postgres", $0] } ?? [])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
        /// Waits up to 30 s (a loaded CI machine starts a server and migrates PostgreSQL slowly):
        /// a bound on liveness, not a speed check.
        func waitUntilHealthy() async throws {
            for _ in 0..<600 {
                if let (_, response) = try? await URLSession.shared.data(from: url.appendingPathComponent("health")),
                    (response as? HTTPURLResponse)?.statusCode == 200
                { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw CancellationError()
        }
        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func killingTheServerMidRequestLeavesTheBooksBalanced() async throws {
        let binary = try #require(Self.serverBinary, "wallet-server is not built next to the tests; run swift build --build-tests")
        let dir = NSTemporaryDirectory() + "crash-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let port = Int.random(in: 20_000...60_000)
        var server = try Server(binary: binary, dir: dir, port: port)
        try await server.waitUntilHealthy()

        let anonymous = Client(serverURL: server.url, transport: URLSessionTransport())
        _ = try await anonymous.register(body: .json(.init(email: "crash@example.com", password: "correct horse battery"))).created
        let tokens = try await anonymous.login(body: .json(.init(email: "crash@example.com", password: "correct horse battery"))).ok.body.json
        let user = Client(serverURL: server.url, transport: URLSessionTransport(), middlewares: [BearerToken { tokens.accessToken }])
        let wallet = SoftwareSigner()
        let challenge = try await user.keyChallenge().ok.body.json
        let message = KeyRegistration.message(challenge: Base64URL.decode(challenge.challenge)!, account: challenge.accountId)
        _ = try await user.registerWalletKey(body: .json(.init(
            publicKey: Base64URL.encode(wallet.publicKey.bytes), challenge: challenge.challenge, signature: Base64URL.encode(try wallet.sign(message))))).noContent
        _ = try await user.fundAccount(body: .json(.init(amount: 1_000_000))).ok

        // Eight clients buy notes back to back until the server dies under them.
        let purchase: @Sendable (Client, String) async -> Bool = { client, key in
            let out = try? await client.purchaseNotes(headers: .init(idempotencyKey: key),
                                                      body: .json(.init(walletKey: Base64URL.encode(wallet.publicKey.bytes), amount: 100)))
            if case .ok = out { return true }
            return false
        }
        let victim = server
        let attempted = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var keys: [String] = []
                    for n in 0..<5_000 {
                        let key = "crash-\(worker)-\(n)"
                        keys.append(key)
                        if await !purchase(user, key) { break }
                    }
                    return keys
                }
            }
            group.addTask { try? await Task.sleep(for: .milliseconds(300)); victim.kill(); return [] }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(attempted.count > 8, "the server died before any purchase")
        server = try Server(binary: binary, dir: dir, port: port)
        try await server.waitUntilHealthy()

        // The books balance after the crash, before any retry.
        let issuer = try await Issuer.open(
            database: try SQLiteStore(path: dir + "/server.sqlite"),
            keyring: IssuerKeyring(authority: SoftwareSigner(), issuing: [.init(signer: SoftwareSigner(), validFrom: 0, validUntil: 1)]),
            config: IssuerConfig(currency: Currency("EUR")!), challengeSecret: [1])
        #expect(try await issuer.checkLedger().isEmpty)

        // Retrying every attempted purchase with its key: all succeed, each charged once.
        var retried = 0
        for key in attempted where await purchase(user, key) { retried += 1 }
        #expect(retried == attempted.count)
        #expect(try await user.getAccount().ok.body.json.balance == 1_000_000 - Int64(attempted.count) * 100)
        #expect(try await issuer.checkLedger().isEmpty)
        server.kill()
    }
}

/// Issue 3 §4, literally: two `wallet-server` processes sharing one PostgreSQL (and one key
/// directory), 100 concurrent redemptions of one chain from two accounts: exactly one credit.
@Suite struct TwoProcessTests {
    @Test func twoServerProcessesOnOnePostgresCreditOnce() async throws {
        guard let url = ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] else { return }
        let binary = try #require(CrashTests.serverBinary, "wallet-server is not built next to the tests")
        let dir = NSTemporaryDirectory() + "two-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let schema = "p_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresStore(url: url, maxConnections: 1)
        try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
        await admin.close()
        let database = url + "?search_path=\(schema)"
        let one = try CrashTests.Server(binary: binary, dir: dir, port: Int.random(in: 20_000...40_000), postgres: database)
        try await one.waitUntilHealthy()
        let two = try CrashTests.Server(binary: binary, dir: dir, port: Int.random(in: 40_001...60_000), postgres: database)
        try await two.waitUntilHealthy()
        defer { one.kill(); two.kill() }

        // Alice pays Bob offline; Bob and Carol both try to redeem, through both processes.
        let config = try await IssuerClient(serverURL: one.url).config()
        var users: [(IssuerClient, IssuerClient, Wallet)] = []
        for name in ["alice", "bob", "carol"] {
            let viaOne = IssuerClient(serverURL: one.url)
            let viaTwo = IssuerClient(serverURL: two.url)
            try await viaOne.register(email: "\(name)@two.test", password: "correct horse battery")
            let tokens = try await viaOne.login(email: "\(name)@two.test", password: "correct horse battery")
            viaTwo.useAccessToken(tokens.accessToken)
            let wallet = try Wallet.create(directory: dir + "/" + name, keyCost: .testing)
            try await viaOne.installTrust(into: wallet)
            try await viaTwo.registerKey(of: wallet)  // registered through the other process
            users.append((viaOne, viaTwo, wallet))
        }
        _ = config
        try await users[0].0.fund(10_000)
        try await users[0].1.purchase(10_000, into: users[0].2)
        let request = try users[1].2.createRequest(amount: 2_500)
        let sent = try users[0].2.pay(request)
        _ = try users[1].2.receive(sent.bundle, for: request.nonce)
        let chain = Base64URL.encode(try #require(try users[1].2.states(.received).first).chain.encoded)

        let statuses = await withTaskGroup(of: String.self) { group in
            for i in 0..<100 {
                let user = i % 4 < 2 ? users[1] : users[2]
                let client = i % 2 == 0 ? user.0 : user.1
                group.addTask {
                    guard case .ok(let ok) = try? await client.api.redeemNotes(body: .json(.init(chains: [chain]))),
                        let status = try? ok.body.json.results.first?.status
                    else { return "error" }
                    return status.rawValue
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == "credited" }.count == 1)
        #expect(statuses.filter { $0 == "already_credited" }.count == 49)
        #expect(statuses.filter { $0 == "invalid" }.count == 50)
        #expect(try await users[1].0.account().balance == 2_500)
        #expect(try await users[2].1.account().balance == 0)
    }
}
