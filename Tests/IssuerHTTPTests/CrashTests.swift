import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import SQLStore
import Synchronization
import TestSupport
import Testing
import WalletAPI
import WalletCore
import WalletSync
import WalletTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `wallet-server` process, killed with SIGKILL in the middle of concurrent value-moving
/// requests, restarted on the same database: the books stay balanced, and retrying every
/// request with its idempotency key charges each purchase exactly once (DESIGN §2.3).
@Suite struct CrashTests {
    /// Successful purchases so far, counted across the workers.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func increment() -> Int {
            count.withLock {
                $0 += 1
                return $0
            }
        }
        var value: Int { count.withLock { $0 } }
    }

    @Test func killingTheServerMidRequestLeavesTheBooksBalanced() async throws {
        let dir = try TemporaryDirectory("crash")
        let arguments = [
            "--database", dir.path("server.sqlite"), "--keys", dir.path("keys"), "--dev-funding",
            "--log-level", "error", "--max-offline-holding", "100000000",
        ]
        var server = try await ServerProcess.start(arguments: arguments, directory: dir.path)

        let tokens = try await Client(serverURL: server.url, transport: URLSessionTransport()).registerAndLogIn(
            email: "crash@example.com")
        let authorized: @Sendable (URL) -> Client = { url in
            Client(serverURL: url, transport: URLSessionTransport(), middlewares: [BearerToken { tokens.accessToken }])
        }
        var user = authorized(server.url)
        let wallet = SoftwareSigner()
        try await user.registerKey(of: wallet)
        _ = try await user.fundAccount(body: .json(.init(amount: 1_000_000))).ok

        // Eight clients buy notes back to back; the purchase that completes the 40th success
        // kills the server (SIGKILL) while the other seven are in flight. The kill waits on that
        // event, not on a timer, so a slow machine still crashes the server mid-purchases.
        let purchase: @Sendable (Client, String) async -> Bool = { client, key in
            let out = try? await client.purchaseNotes(
                headers: .init(idempotencyKey: key),
                body: .json(.init(walletKey: Base64URL.encode(wallet.publicKey.bytes), amount: 100)))
            if case .ok = out { return true }
            return false
        }
        let killAfter = 40
        let succeeded = Counter()
        let victim = server
        let buyer = user
        let attempted = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var keys: [String] = []
                    for n in 0..<5_000 {
                        let key = "crash-\(worker)-\(n)"
                        keys.append(key)
                        guard await purchase(buyer, key) else { break }
                        if succeeded.increment() == killAfter { victim.crash() }
                    }
                    return keys
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        server.kill()
        #expect(succeeded.value >= killAfter, "the server died before the kill")
        #expect(attempted.count > killAfter, "no purchase was in flight at the kill")
        server = try await ServerProcess.start(arguments: arguments, directory: dir.path)
        defer { server.kill() }
        user = authorized(server.url)

        // The books balance after the crash, before any retry.
        let issuer = try await Issuer.readingBooks(of: try SQLiteStore(path: dir.path("server.sqlite")))
        #expect(try await issuer.checkLedger().isEmpty)

        // Retrying every attempted purchase with its key: all succeed, each charged once.
        var retried = 0
        for key in attempted where await purchase(user, key) { retried += 1 }
        #expect(retried == attempted.count)
        #expect(try await user.getAccount().ok.body.json.balance == 1_000_000 - Int64(attempted.count) * 100)
        #expect(try await issuer.checkLedger().isEmpty)
    }
}

/// Two `wallet-server` processes sharing one PostgreSQL (and one key
/// directory), 100 concurrent redemptions of one chain from two accounts: exactly one credit.
@Suite struct TwoProcessTests {
    /// Skipped (and shown as skipped) without PostgreSQL; `scripts/test` always has it.
    @Test(.enabled(if: Backend.url != nil))
    func twoServerProcessesOnOnePostgresCreditOnce() async throws {
        let url = try #require(Backend.url)
        let scratch = try TemporaryDirectory("two")
        let dir = scratch.path
        let schema = try await ScratchDatabase.postgres(url: url, prefix: "p")
        let database = try #require(schema.schemaURL)
        let arguments = [
            "--keys", dir + "/keys", "--dev-funding", "--log-level", "error", "--max-offline-holding", "100000000", "--postgres",
            database,
        ]
        let one = try await ServerProcess.start(arguments: arguments, directory: dir)
        let two = try await ServerProcess.start(arguments: arguments, directory: dir)
        defer {
            one.kill()
            two.kill()
        }

        // Alice pays Bob offline; Bob and Carol both try to redeem, through both processes.
        var users: [(IssuerClient, IssuerClient, Wallet)] = []
        for name in ["alice", "bob", "carol"] {
            // The key is registered through the other process.
            let account = try await ServerAccount.register(
                name, on: one.url, walletDirectory: dir + "/" + name, keyServer: two.url)
            let viaTwo = IssuerClient(serverURL: two.url)
            viaTwo.useAccessToken(account.accessToken)
            users.append((account.client, viaTwo, account.wallet))
        }
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
