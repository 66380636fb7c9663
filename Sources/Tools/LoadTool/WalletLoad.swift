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
    @Option(
        help:
            "PostgreSQL URL (with --database postgres; env OW_LOAD_POSTGRES_URL); the server must run with fsync and synchronous_commit on."
    )
    var postgresURL: String?
    @Option(help: "Concurrent HTTP clients.") var clients: Int = 64
    @Option(help: "Redemptions in the measured run.") var redemptions: Int = 4_000
    @Flag(help: "Print JSON instead of text.") var json = false
    @Option(help: "Redemption transactions in flight (default: 1 on SQLite; on PostgreSQL 2 with 4 cores or more, else 1).")
    var parallelism: Int?
    @Option(help: "HTTP client: nio (light, default) or urlsession (the generated client over Foundation's URLSession).")
    var client: String = "nio"
    @Flag(help: "Call the issuer directly instead of over HTTP (isolates the HTTP stack's cost).") var direct = false
    @Option(
        help:
            "Soak instead: this many seconds of mixed purchases, redemptions, refreshes and fraud reports against a wallet-server child process, with database connection cuts (PostgreSQL) and SIGKILL restarts; then the books, acknowledged redemptions and 5xx are checked (docs/reliability.md §5)."
    )
    var soak: Int?
    @Option(
        help:
            "With --soak on a replicated PostgreSQL: the faults are this shell command, which loses the primary and returns once another is promoted (scripts/failover)."
    )
    var losePrimary: String?
    @Option(help: "With --lose-primary: how many times to run it, evenly over the soak.")
    var rounds: Int = 3
    @Option(
        help:
            "The wallet-server executable the soak and --report's several-process runs start (default: the one beside wallet-load)."
    )
    var serverBinary: String?
    @Flag(
        help:
            "Print the whole table of docs/server.md, \"Load test\": each database's ceiling, redemptions over HTTP on an empty database and after each --prefill size, and --processes wallet-server processes on PostgreSQL (needs --postgres-url unless --databases sqlite)."
    )
    var report = false
    @Option(
        help:
            "With --report: spent-set sizes to prefill to, in order, on the same database (comma-separated notes; 0 or none: no prefill)."
    )
    var prefill: String = "100000,1000000"
    @Option(help: "With --report: numbers of wallet-server processes to run on one PostgreSQL (comma-separated; none: skip).")
    var processes: String = "1,2,4"
    @Option(help: "With --report: the databases to measure (comma-separated: sqlite, postgres).")
    var databases: String = "sqlite,postgres"
    @Option(
        help:
            "With --report: SQLite page cache of the issuer's connection in MB (PRAGMA cache_size; default: SQLiteStore's, 64 MB; 2 is SQLite's own default), to see what the cache does to the curve."
    )
    var sqliteCacheMb: Int?

    /// A fresh database for `label`: a new SQLite file in a temporary directory, or a new
    /// schema on the PostgreSQL server. `location` is the file path or the schema's URL.
    func openDatabase(_ label: String, maxConnections: Int = 40) async throws -> (db: any SQLDatabase, location: String) {
        try await LoadDatabase.open(database, label: label, postgresURL: postgresURL, maxConnections: maxConnections)
    }

    func run() async throws {
        if let soak {
            guard soak >= 1, clients >= 3 else {
                throw ValidationError("--soak needs at least 1 second and --clients at least 3")
            }
            do {
                guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
                try await Soak(
                    seconds: soak, database: database, postgresURL: postgresURL, clients: clients, serverBinary: serverBinaryPath,
                    json: json,
                    losePrimary: losePrimary, rounds: rounds
                ).run()
            } catch let failure as SoakFailure {
                FileHandle.standardError.write(Data("soak: \(failure)\n".utf8))
                throw ExitCode.failure
            }
            return
        }
        if report {
            do {
                try await LoadReport(options: self).run()
            } catch let failure as SoakFailure {
                FileHandle.standardError.write(Data("report: \(failure)\n".utf8))
                throw ExitCode.failure
            }
            return
        }
        let json = self.json
        let log: @Sendable (String) -> Void = { s in if !json { FileHandle.standardError.write(Data((s + "\n").utf8)) } }

        // 1. Ceiling: one-row durable insert transactions from `clients` concurrent tasks.
        let ceilingOpened = try await openDatabase("ceiling")
        let ceilingDB = ceilingOpened.db
        let measuredCeiling = try await LoadSetup.ceiling(ceilingDB, clients: clients, inserts: redemptions)
        let ceiling = measuredCeiling.rate
        let perInsert = measuredCeiling.cpu.perOperation(redemptions)
        log(
            String(
                format:
                    "ceiling: %.0f durable one-row inserts/s (%d clients); CPU per insert %.0f µs (load %.0f, PostgreSQL %.0f)",
                ceiling, clients, perInsert.both, perInsert.own, perInsert.postgres))

        // 2. An issuer and its HTTP server on a fresh database.
        let opened = try await openDatabase("issuer")
        let db = opened.db
        let local = try await LocalIssuer.start(database: db, parallelism: parallelism)
        defer { local.stop() }

        // 3. Setup (not measured): one-hop chains for one payee account per client.
        log("setup: \(redemptions) one-hop chains for \(clients) payees…")
        let work = try await LoadSetup.makeWork(
            local.issuer, tokens: local.tokens, redemptions: redemptions, clients: clients, tag: "run", log: log)

        // 4. Measured: every client redeems its chains one request at a time.
        let figures: RunFigures
        if !direct && client == "nio" {
            figures = try await LoadSetup.measure(work, ports: [local.port])
        } else {
            figures = try await measureOther(work, local: local)
        }
        if let cpu = figures.cpu?.perOperation(figures.redemptions) {
            log(
                String(
                    format: "CPU per redemption %.0f µs (server and load %.0f, PostgreSQL %.0f)", cpu.both, cpu.own, cpu.postgres)
            )
        }
        let problems = try await local.issuer.checkLedger()
        let rate = figures.rate
        if json {
            let out: [String: Any] = [
                "database": database, "clients": clients, "redemptions": redemptions, "redemptions_per_s": rate,
                "p50_ms": figures.latency.p50, "p99_ms": figures.latency.p99, "insert_ceiling_per_s": ceiling,
                "ratio": rate / ceiling,
                "cpu_us_per_redemption": figures.cpu?.perOperation(figures.redemptions).both ?? 0,
                "cpu_us_per_insert": perInsert.both,
                "failures": figures.failures, "ledger_problems": problems.count,
            ]
            print(String(decoding: try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]), as: UTF8.self))
        } else {
            print(
                String(
                    format:
                        "%@%@: %.0f durable redemptions/s, p50 %.1f ms, p99 %.1f ms | one-row insert ceiling %.0f/s | ratio %.2f | failures %d | ledger %@",
                    database, direct ? " (direct, no HTTP)" : " over HTTP (\(client) client)", rate, figures.latency.p50,
                    figures.latency.p99, ceiling,
                    rate / ceiling, figures.failures, problems.isEmpty ? "balanced" : "UNBALANCED"))
        }
        local.stop()
        // The SQLite files and PostgreSQL schemas of this run are not kept.
        await LoadReport.drop(opened)
        await LoadReport.drop(ceilingOpened)
        if figures.failures > 0 || !problems.isEmpty { throw ExitCode.failure }
    }

    /// The measured run through the generated client over URLSession, or calling the issuer
    /// directly (`--direct`): for comparison with the default NIO client.
    func measureOther(_ work: LoadWork, local: LocalIssuer) async throws -> RunFigures {
        guard let baseURL = URL(string: "http://127.0.0.1:\(local.port)") else { throw ValidationError("bad port \(local.port)") }
        let shared = Shared()
        let cpu = CPUTime.now()
        let start = ContinuousClock.now
        let (direct, issuer) = (self.direct, local.issuer)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in work.clients {
                group.addTask { [shared] in
                    let token = client.token
                    let http = Client(serverURL: baseURL, transport: URLSessionTransport(), middlewares: [BearerToken { token }])
                    var mine: [Double] = []
                    for chain in client.chains {
                        let t0 = ContinuousClock.now
                        let credited: Bool
                        if direct {
                            credited =
                                try await issuer.redeem(account: client.account, chains: [chain]).first.map {
                                    if case .credited = $0 { true } else { false }
                                } ?? false
                        } else {
                            let out = try await http.redeemNotes(body: .json(.init(chains: [Base64URL.encode(chain)])))
                            if case .ok(let ok) = out, (try? ok.body.json.results.first?.status) == .credited {
                                credited = true
                            } else {
                                credited = false
                            }
                        }
                        mine.append((ContinuousClock.now - t0).seconds)
                        if !credited { shared.counter.add(1, ordering: .relaxed) }
                    }
                    shared.latencies.withLock { $0 += mine }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (ContinuousClock.now - start).seconds
        let latency = Latency(shared.latencies.withLock { $0 })
        return RunFigures(
            redemptions: work.total, seconds: seconds, latency: latency, failures: shared.counter.load(ordering: .relaxed),
            perServer: [(work.total, Double(work.total) / seconds, latency)], cpu: CPUTime.now() - cpu)
    }

    /// The wallet-server executable the soak and the several-process runs start.
    var serverBinaryPath: String {
        serverBinary
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-server")
            .path
    }
}

/// A fresh database for one measurement.
enum LoadDatabase {
    static func open(
        _ kind: String, label: String, postgresURL: String?, maxConnections: Int
    ) async throws -> (db: any SQLDatabase, location: String) {
        switch kind {
        case "sqlite":
            let dir = NSTemporaryDirectory() + "wallet-load-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let path = dir + "/\(label).sqlite"
            return (try SQLiteStore(path: path), path)
        case "postgres":
            guard let url = postgresURL ?? ProcessInfo.processInfo.environment["OW_LOAD_POSTGRES_URL"] else {
                throw ValidationError("--postgres-url is required with --database postgres")
            }
            let schema = "load_\(label)_\(UInt32.random(in: 0...UInt32.max))"
            let admin = try PostgresStore(url: url, maxConnections: 1)
            try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
            await admin.close()
            let located = url + (url.contains("?") ? "&" : "?") + "search_path=\(schema)"
            return (try PostgresStore(url: located, maxConnections: maxConnections), located)
        default:
            throw ValidationError("--database is sqlite or postgres")
        }
    }
}

/// An issuer and its HTTP server inside this process, on a fresh database: what the default
/// run and the report's single-process rows measure.
struct LocalIssuer: Sendable {
    let issuer: Issuer
    let tokens: AccessTokens
    let port: Int
    let server: Task<Void, any Error>

    static func start(database db: any SQLDatabase, parallelism: Int?) async throws -> LocalIssuer {
        let now = UInt64(Date().timeIntervalSince1970)
        let keyring = IssuerKeyring(
            authority: SoftwareSigner(), issuing: [.init(signer: SoftwareSigner(), validFrom: now - 60, validUntil: now + 86_400)]
        )
        guard let eur = Currency("EUR") else { throw ValidationError("currency") }
        // Password cost lowered: logins are not what is measured.
        var config = IssuerConfig(
            currency: eur, maxOfflineHolding: UInt64(Int64.max / 4), devFunding: true, passwordCost: .testing)
        config.maxHops = 8
        config.redemptionParallelism = parallelism
        let issuer = try await Issuer.open(
            database: db, keyring: keyring, config: config, challengeSecret: Array(repeating: 1, count: 32))
        let tokens = AccessTokens(secret: Array(repeating: 2, count: 32), lifetime: 6 * 3_600)
        let settings = HTTPSettings(
            port: 0, writesPerMinutePerIP: Int.max / 2, loginsPerMinutePerIP: 1_000, account: .init(writesPerMinute: Int.max / 2))
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        var serverLogger = Logger(label: "wallet-load.server")
        serverLogger.logLevel = .critical  // cancelling the server at the end is not an error here
        let app = try IssuerApplication.make(issuer: issuer, tokens: tokens, settings: settings, logger: serverLogger) {
            portSink.yield($0)
        }
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else {
            server.cancel()
            throw ValidationError("server did not start")
        }
        return LocalIssuer(issuer: issuer, tokens: tokens, port: port, server: server)
    }

    func stop() { server.cancel() }
}

/// Counters shared by the client tasks.
final class Shared: Sendable {
    let counter = Atomic<Int>(0)
    let latencies = Mutex<[Double]>([])
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
