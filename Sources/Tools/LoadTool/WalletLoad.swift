// wallet-load: redemption throughput of the issuer over real HTTP on loopback, next to the
// durable one-row-insert ceiling of the same database measured in the same run.
//
//   swift run -c release wallet-load --database sqlite
//   swift run -c release wallet-load --database postgres --postgres-url postgres://…   (durable server!)
//   scripts/load    (both, with a throwaway durable PostgreSQL)
import ArgumentParser
import Foundation
import IssuerCore
import IssuerHTTP
import Logging
import OfflineNotes
import OpenAPIRuntime
import OpenAPIURLSession
import SQLStore
import Synchronization
import WalletAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@main
struct WalletLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-load", abstract: "Measure durable redemptions/s over HTTP against the database's insert ceiling.")

    @Option(help: "sqlite or postgres.") var database: String = "sqlite"
    @Option(help: "PostgreSQL URL (with --database postgres; env OW_LOAD_POSTGRES_URL); the server must run with fsync and synchronous_commit on.")
    var postgresURL: String?
    @Option(help: "Concurrent HTTP clients.") var clients: Int = 64
    @Option(help: "Redemptions in the measured run.") var redemptions: Int = 4_000
    @Flag(help: "Print JSON instead of text.") var json = false
    @Option(help: "Redemption transactions in flight (default: 1 on SQLite, 4 on PostgreSQL).") var parallelism: Int?
    @Option(help: "HTTP client: nio (light, default) or urlsession (the generated client over Foundation's URLSession).")
    var client: String = "nio"
    @Flag(help: "Call the issuer directly instead of over HTTP (isolates the HTTP stack's cost).") var direct = false
    @Option(help: "Soak instead: this many seconds of mixed purchases, redemptions, refreshes and fraud reports against a wallet-server child process, with database connection cuts (PostgreSQL) and SIGKILL restarts; then the books, acknowledged redemptions and 5xx are checked (docs/reliability.md §5).")
    var soak: Int?
    @Option(help: "The wallet-server executable the soak runs (default: the one beside wallet-load).")
    var serverBinary: String?

    func openDatabase(_ label: String) async throws -> any SQLDatabase {
        switch database {
        case "sqlite":
            let dir = NSTemporaryDirectory() + "wallet-load-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            return try SQLiteStore(path: dir + "/\(label).sqlite")
        case "postgres":
            guard let url = postgresURL ?? ProcessInfo.processInfo.environment["OW_LOAD_POSTGRES_URL"] else { throw ValidationError("--postgres-url is required with --database postgres") }
            let schema = "load_\(label)_\(UInt32.random(in: 0...UInt32.max))"
            let admin = try PostgresStore(url: url, maxConnections: 1)
            try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
            await admin.close()
            return try PostgresStore(url: url + (url.contains("?") ? "&" : "?") + "search_path=\(schema)", maxConnections: 40)
        default:
            throw ValidationError("--database is sqlite or postgres")
        }
    }

    func run() async throws {
        if let soak {
            guard soak >= 1, clients >= 3 else { throw ValidationError("--soak needs at least 1 second and --clients at least 3") }
            let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-server").path
            do {
                try await Soak(
                    seconds: soak, database: database, postgresURL: postgresURL, clients: clients, serverBinary: serverBinary ?? beside, json: json
                ).run()
            } catch let failure as SoakFailure {
                FileHandle.standardError.write(Data("soak: \(failure)\n".utf8))
                throw ExitCode.failure
            }
            return
        }
        let log = { (s: String) in if !json { FileHandle.standardError.write(Data((s + "\n").utf8)) } }

        // 1. Ceiling: one-row durable insert transactions from `clients` concurrent tasks.
        let ceilingDB = try await openDatabase("ceiling")
        try await ceilingDB.transaction { try await $0.execute("CREATE TABLE IF NOT EXISTS ceiling (id \(database == "sqlite" ? "INTEGER" : "BIGINT") PRIMARY KEY, payload \(database == "sqlite" ? "BLOB" : "BYTEA"))") }
        let inserts = redemptions
        let ceilingStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            let next = Shared()
            for _ in 0..<clients {
                group.addTask {
                    while true {
                        let i = next.counter.add(1, ordering: .relaxed).oldValue
                        if i >= inserts { return }
                        try await ceilingDB.transaction { try await $0.execute("INSERT INTO ceiling(id, payload) VALUES (?, ?)", i, [UInt8](repeating: 7, count: 64)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let ceiling = Double(inserts) / (ContinuousClock.now - ceilingStart).seconds
        log(String(format: "ceiling: %.0f durable one-row inserts/s (%d clients)", ceiling, clients))

        // 2. An issuer and its HTTP server on a fresh database.
        let db = try await openDatabase("issuer")
        let now = UInt64(Date().timeIntervalSince1970)
        let keyring = IssuerKeyring(authority: SoftwareSigner(), issuing: [.init(signer: SoftwareSigner(), validFrom: now - 60, validUntil: now + 86_400)])
        guard let eur = Currency("EUR") else { throw ValidationError("currency") }
        // Password cost lowered: logins are not what is measured.
        var config = IssuerConfig(currency: eur, maxOfflineHolding: UInt64(Int64.max / 4), devFunding: true, passwordCost: .testing)
        config.maxHops = 8
        config.redemptionParallelism = parallelism
        let issuer = try await Issuer.open(database: db, keyring: keyring, config: config, challengeSecret: Array(repeating: 1, count: 32))
        let tokens = AccessTokens(secret: Array(repeating: 2, count: 32), lifetime: 3_600)
        let settings = HTTPSettings(port: 0, writesPerMinutePerIP: Int.max / 2, loginsPerMinutePerIP: 1_000, account: .init(writesPerMinute: Int.max / 2))
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        var serverLogger = Logger(label: "wallet-load.server")
        serverLogger.logLevel = .critical  // cancelling the server at the end is not an error here
        let app = try IssuerApplication.make(issuer: issuer, tokens: tokens, settings: settings, logger: serverLogger) { portSink.yield($0) }
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else { throw ValidationError("server did not start") }

        // 3. Setup (not measured): one payer with notes, one payee account per client, 1-hop chains.
        log("setup: \(redemptions) one-hop chains for \(clients) payees…")
        let payer = try await issuer.register(email: "payer@load.test", password: "load test password")
        let payerKey = SoftwareSigner()
        try await register(issuer, payer, payerKey)
        _ = try await issuer.fund(account: payer, amount: UInt64(redemptions) * 100)
        var payees: [(account: Int64, key: SoftwareSigner)] = []
        for i in 0..<clients {
            let id = try await issuer.register(email: "payee\(i)@load.test", password: "load test password")
            let key = SoftwareSigner()
            try await register(issuer, id, key)
            payees.append((id, key))
        }
        var work: [[[UInt8]]] = Array(repeating: [], count: clients)
        for i in 0..<redemptions {
            let note = try await issuer.purchase(account: payer, walletKey: payerKey.publicKey, amount: 100, idempotencyKey: "load-purchase-\(i)")[0]
            let payee = payees[i % clients]
            let t = try Transfer.sign(input: note.heldRef, outputs: [TransferOutput(owner: payee.key.publicKey, amount: 100)],
                                      nonce: Nonce(uncheckedBytes: Array(repeating: UInt8(i & 0xFF), count: 16)), createdAt: now, signer: payerKey)
            work[i % clients].append(note.appending(t, holding: 0).encoded)
            if i % 1_000 == 999 { log("  \(i + 1) chains") }
        }

        // 4. Measured: every client redeems its chains one request at a time.
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else { throw ValidationError("bad port \(port)") }
        let shared = Shared()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, chains) in work.enumerated() {
                let token = tokens.issue(account: payees[i].account, role: "user")
                let chains = chains
                let account = payees[i].account
                let direct = self.direct
                if !direct && self.client == "nio" {
                    group.addTask { [shared] in
                        try await NIOHTTPClient.withConnection(host: "127.0.0.1", port: port) { http in
                            var mine: [Double] = []
                            for chain in chains {
                                let t0 = ContinuousClock.now
                                let body = Array(#"{"chains":[""#.utf8) + Array(Base64URL.encode(chain).utf8) + Array(#""]}"#.utf8)
                                let (status, reply) = try await http.post("/v1/notes/redeem", json: body, token: token)
                                mine.append((ContinuousClock.now - t0).seconds)
                                if status != 200 || !String(decoding: reply, as: UTF8.self).contains(#""credited""#) {
                                    shared.counter.add(1, ordering: .relaxed)
                                }
                            }
                            shared.latencies.withLock { $0 += mine }
                        }
                    }
                    continue
                }
                group.addTask { [shared] in
                    let client = Client(serverURL: baseURL, transport: URLSessionTransport(), middlewares: [BearerToken { token }])
                    var mine: [Double] = []
                    for chain in chains {
                        let t0 = ContinuousClock.now
                        let credited: Bool
                        if direct {
                            credited = try await issuer.redeem(account: account, chains: [chain]).first.map { if case .credited = $0 { true } else { false } } ?? false
                        } else {
                            let out = try await client.redeemNotes(body: .json(.init(chains: [Base64URL.encode(chain)])))
                            if case .ok(let ok) = out, (try? ok.body.json.results.first?.status) == .credited { credited = true } else { credited = false }
                        }
                        mine.append((ContinuousClock.now - t0).seconds)
                        if !credited { shared.counter.add(1, ordering: .relaxed) }
                    }
                    shared.latencies.withLock { $0 += mine }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let sorted = shared.latencies.withLock { $0 }.sorted()
        let failureCount = shared.counter.load(ordering: .relaxed)
        let rate = Double(redemptions) / elapsed
        let p50 = sorted[sorted.count / 2] * 1_000
        let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)] * 1_000
        let problems = try await issuer.checkLedger()
        if json {
            let out: [String: Any] = ["database": database, "clients": clients, "redemptions": redemptions, "redemptions_per_s": rate,
                                      "p50_ms": p50, "p99_ms": p99, "insert_ceiling_per_s": ceiling, "ratio": rate / ceiling,
                                      "failures": failureCount, "ledger_problems": problems.count]
            print(String(decoding: try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]), as: UTF8.self))
        } else {
            print(String(format: "%@%@: %.0f durable redemptions/s, p50 %.1f ms, p99 %.1f ms | one-row insert ceiling %.0f/s | ratio %.2f | failures %d | ledger %@",
                         database, direct ? " (direct, no HTTP)" : " over HTTP (\(client) client)", rate, p50, p99, ceiling, rate / ceiling, failureCount, problems.isEmpty ? "balanced" : "UNBALANCED"))
        }
        await db.close()
        await ceilingDB.close()
        if failureCount > 0 || !problems.isEmpty { throw ExitCode.failure }
    }

    func register(_ issuer: Issuer, _ account: Int64, _ key: SoftwareSigner) async throws {
        let challenge = issuer.keyChallenge(account: account)
        let message = KeyRegistration.message(challenge: challenge, account: account)
        try await issuer.registerWalletKey(account: account, key: key.publicKey, challenge: challenge, signature: try key.sign(message))
    }
}

/// Counters shared by the client tasks.
final class Shared: Sendable {
    let counter = Atomic<Int>(0)
    let latencies = Mutex<[Double]>([])
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
