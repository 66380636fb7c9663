import Foundation
import IssuerCore
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import SQLStore
import Testing
import WalletAPI

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
        init(binary: URL, dir: String, port: Int) throws {
            self.port = port
            process.executableURL = binary
            process.arguments = ["serve", "--port", String(port), "--database", dir + "/server.sqlite", "--keys", dir + "/keys", "--dev-funding",
                                 "--log-level", "error", "--max-offline-holding", "100000000"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
        func waitUntilHealthy() async throws {
            for _ in 0..<100 {
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
        let message = Array("offline-wallet/v1/register-key".utf8) + [0] + Base64URL.decode(challenge.challenge)! + withUnsafeBytes(of: challenge.accountId.bigEndian, Array.init)
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
