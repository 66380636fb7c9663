import ArgumentParser
import Ethereum
import Foundation
import Hummingbird
import IssuerCore
import IssuerHTTP
import Logging
import OfflineNotes
import SQLStore

/// Options shared by every subcommand: where the data lives and how money behaves.
/// Each flag also reads an environment variable (shown in --help), flags win.
struct CommonOptions: ParsableArguments {
    @Option(help: "SQLite database file (default; env WALLET_SERVER_DATABASE).")
    var database: String = ProcessInfo.processInfo.environment["WALLET_SERVER_DATABASE"] ?? "./data/server.sqlite"

    @Option(
        help:
            "Use PostgreSQL instead: postgres://user[:password]@host[:port]/db, or a primary and its standbys as postgres://user@h1:p1,h2:p2/db (env WALLET_SERVER_POSTGRES_URL)."
    )
    var postgres: String?

    /// The PostgreSQL URL from the flag, else the environment.
    var postgresURL: String? { postgres ?? ProcessInfo.processInfo.environment["WALLET_SERVER_POSTGRES_URL"] }

    @Option(help: "Directory of the issuer's keys, created on first start with mode 0600 files (env WALLET_SERVER_KEYS).")
    var keys: String = ProcessInfo.processInfo.environment["WALLET_SERVER_KEYS"] ?? "./data/keys"

    @Option(help: "ISO 4217 currency of the issuer.")
    var currency: String = ProcessInfo.processInfo.environment["WALLET_SERVER_CURRENCY"] ?? "EUR"

    @Option(help: "Most a wallet may hold in offline notes, in minor units.")
    var maxOfflineHolding: UInt64 = 50_000

    @Option(help: "Most transfers before a note must be refreshed online.")
    var maxHops: Int = 8

    @Option(help: "Seconds from issue to expiry of a note.")
    var noteLifetime: UInt64 = 30 * 86_400

    @Option(help: "Seconds after expiry during which notes can still be redeemed.")
    var redemptionGrace: UInt64 = 14 * 86_400

    @Option(help: "Double-spend policy: credit-later-receiver (default) or reject-later-receiver.")
    var policy: String = DoubleSpendPolicy.creditLaterReceiver.rawValue

    @Option(help: "Seconds to wait at start for PostgreSQL to answer before giving up (env WALLET_SERVER_DATABASE_WAIT).")
    var databaseWait: Double = Double(ProcessInfo.processInfo.environment["WALLET_SERVER_DATABASE_WAIT"] ?? "") ?? 30

    @Option(
        help:
            "With several PostgreSQL hosts: seconds to look for the new primary after losing one, before requests fail with 503 (env WALLET_SERVER_DATABASE_FAILOVER_WAIT)."
    )
    var databaseFailoverWait: Double =
        Double(ProcessInfo.processInfo.environment["WALLET_SERVER_DATABASE_FAILOVER_WAIT"] ?? "") ?? 30

    @Flag(help: "Allow POST /v1/account/fund (development and tests only).")
    var devFunding = ProcessInfo.processInfo.environment["WALLET_SERVER_DEV_FUNDING"] == "1"

    func openIssuer(logger: Logger) async throws -> Issuer {
        guard let currency = Currency(currency) else { throw ValidationError("--currency must be three capital letters") }
        guard let policy = DoubleSpendPolicy(rawValue: policy) else {
            throw ValidationError("--policy: credit-later-receiver or reject-later-receiver")
        }
        let now = Timestamp(Date().timeIntervalSince1970)
        let (keyring, secret) = try KeyDirectory(path: keys).load(now: now, noteLifetime: noteLifetime)
        let config = IssuerConfig(
            currency: currency, maxOfflineHolding: maxOfflineHolding, maxHops: maxHops, noteLifetime: noteLifetime,
            redemptionGrace: redemptionGrace, policy: policy, devFunding: devFunding)
        if let postgresURL {
            guard databaseWait >= 0, databaseWait <= 3_600 else {
                throw ValidationError("--database-wait must be a number of seconds from 0 to 3600")
            }
            guard databaseFailoverWait > 0, databaseFailoverWait <= 3_600 else {
                throw ValidationError("--database-failover-wait must be a number of seconds above 0 and at most 3600")
            }
            let db: PostgresStore
            do {
                db = try await PostgresStore.connect(
                    url: postgresURL, patience: .milliseconds(Int64(databaseWait * 1_000)),
                    failoverPatience: .milliseconds(Int64(databaseFailoverWait * 1_000)), logger: logger)
            } catch {
                throw StartupError("\(error). Check --postgres (env WALLET_SERVER_POSTGRES_URL) and that the server is up.")
            }
            return try await Issuer.open(database: db, keyring: keyring, config: config, challengeSecret: secret)
        }
        // SQLite: a path that cannot be created, opened or read as a database is named with
        // its cause here, instead of surfacing later as an opaque storage error.
        let db: SQLiteStore
        do {
            // (URL, not NSString: Foundation's deletingLastPathComponent traps on a one-letter path.)
            let dir = URL(fileURLWithPath: database).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            db = try SQLiteStore(path: database)
        } catch {
            throw StartupError(
                "cannot open the SQLite database at \(database): \(Self.describe(error)). Check --database (env WALLET_SERVER_DATABASE)."
            )
        }
        do {
            return try await Issuer.open(database: db, keyring: keyring, config: config, challengeSecret: secret)
        } catch {
            throw StartupError(
                "cannot use the SQLite database at \(database): \(error). Check --database (env WALLET_SERVER_DATABASE).")
        }
    }

    /// Foundation's errors in words (their default description is a dump of the NSError).
    static func describe(_ error: any Error) -> String {
        let text = (error as? CocoaError)?.localizedDescription ?? String(describing: error)
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}

/// The server cannot start; ArgumentParser prints it as `Error: <message>` and exits with 1.
struct StartupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@main
struct WalletServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-server",
        abstract: "The Offline Wallet issuer: accounts, offline notes, redemption, double-spend detection.",
        subcommands: [Serve.self, CreateAdmin.self, RotateKeys.self, Debug.self],  // Debug: hidden, for scripts/crash-sweep
        defaultSubcommand: Serve.self)
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP API (default).")

    @OptionGroup var common: CommonOptions
    @OptionGroup(title: "Escrow settlement") var escrowOptions: EscrowOptions
    @OptionGroup(title: "HTTPS (docs/server.md, Transport security)") var tlsOptions: TLSOptions

    @Option(help: "Address to listen on (env WALLET_SERVER_HOST).")
    var host: String = ProcessInfo.processInfo.environment["WALLET_SERVER_HOST"] ?? "127.0.0.1"

    @Option(help: "Port to listen on (env WALLET_SERVER_PORT).")
    var port: Int = Int(ProcessInfo.processInfo.environment["WALLET_SERVER_PORT"] ?? "") ?? 8080

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = ProcessInfo.processInfo.environment["WALLET_SERVER_LOG_LEVEL"] ?? "info"

    @Option(help: "Once listening, write the bound port to this file (with --port 0, the port the system picked).")
    var portFile: String?

    @Option(help: "Register, login, refresh and logout calls a minute per client address (raise for test and fuzz runs only).")
    var authPerMinutePerIp: Int = HTTPSettings().loginsPerMinutePerIP

    @Option(help: "Writes (POST) a minute per client address.")
    var writesPerMinutePerIp: Int = HTTPSettings().writesPerMinutePerIP

    @Option(help: "Writes a minute per account.")
    var writesPerMinutePerAccount: Int = AccountLimits().writesPerMinute

    @Option(
        help:
            "Also serve GET /metrics without a token on this HOST:PORT, for a Prometheus scraper; keep it on loopback or a private network (env WALLET_SERVER_METRICS_ADDRESS). The API's /metrics needs an admin token."
    )
    var metricsAddress: String? = ProcessInfo.processInfo.environment["WALLET_SERVER_METRICS_ADDRESS"]

    @Option(help: "Seconds a kept-alive connection may stay silent after a response before it is closed.")
    var idleTimeout: Double = 30

    @Option(
        help:
            "Seconds a client has to send a whole request head, from accepting the connection (or from the request's first byte on a kept-alive one)."
    )
    var headerTimeout: Double = 10

    @Option(help: "Seconds a client has to send a whole request body, from the end of its head.")
    var bodyTimeout: Double = 30

    @Option(
        help:
            "Most connections open at once (default: the file-descriptor limit, ulimit -n, less a reserve for the database and logs; at most 16384)."
    )
    var maxConnections: Int?

    @Option(help: "Most connections open at once from one client address (behind a proxy, raise it to --max-connections).")
    var maxConnectionsPerClient: Int = ConnectionLimits().maxConnectionsPerClient

    @Flag(
        help:
            "Mark the operator console's cookies Secure although this process serves plain HTTP: it runs behind a TLS proxy (with --tls-cert they are anyway)."
    )
    var consoleSecureCookies = false

    func validate() throws {
        for (flag, value) in [
            ("--auth-per-minute-per-ip", authPerMinutePerIp), ("--writes-per-minute-per-ip", writesPerMinutePerIp),
            ("--writes-per-minute-per-account", writesPerMinutePerAccount),
        ]
        where value < 1 || value > 1_000_000_000 {
            throw ValidationError("\(flag) must be from 1 to 1000000000; got \(value).")
        }
        _ = try connectionLimits()
        _ = try metricsListenAddress()
    }

    /// `--metrics-address` as host and port, or nil without it.
    func metricsListenAddress() throws -> (host: String, port: Int)? {
        guard let metricsAddress else { return nil }
        guard let colon = metricsAddress.lastIndex(of: ":"),
            let port = Int(metricsAddress[metricsAddress.index(after: colon)...]),
            (0...65_535).contains(port), colon > metricsAddress.startIndex
        else {
            throw ValidationError("--metrics-address must be HOST:PORT, e.g. 127.0.0.1:9464; got \(metricsAddress).")
        }
        return (String(metricsAddress[..<colon]), port)
    }

    /// The connection options, checked: timeouts of (0, 3600] seconds, and a global limit that
    /// leaves descriptors for the database and logs (ConnectionLimits.descriptorReserve).
    func connectionLimits(descriptors: Int? = ConnectionLimits.descriptorLimit()) throws -> ConnectionLimits {
        var limits = ConnectionLimits(maxConnections: ConnectionLimits.defaultMaxConnections(descriptors: descriptors))
        for (flag, seconds, keyPath) in [
            ("--idle-timeout", idleTimeout, \ConnectionLimits.idleTimeout), ("--header-timeout", headerTimeout, \.headerTimeout),
            ("--body-timeout", bodyTimeout, \.bodyTimeout),
        ] {
            guard seconds > 0, seconds <= 3_600 else {
                throw ValidationError("\(flag) must be a number of seconds above 0 and at most 3600; got \(seconds).")
            }
            limits[keyPath: keyPath] = .milliseconds(Int64((seconds * 1_000).rounded(.up)))
        }
        if let descriptors, ConnectionLimits.connectionBudget(descriptors: descriptors) < 1 {
            throw ValidationError(
                "this process may open only \(descriptors) files (ulimit -n), all kept for the database and logs; raise it (ulimit -n 4096) and start again."
            )
        }
        if let maxConnections {
            let budget = descriptors.map(ConnectionLimits.connectionBudget(descriptors:)) ?? 1_000_000
            guard maxConnections >= 1, maxConnections <= budget else {
                let why =
                    descriptors.map {
                        "; this process may open \($0) files (ulimit -n) and keeps \(ConnectionLimits.descriptorReserve(of: $0)) for the database and logs: raise ulimit -n for more"
                    } ?? ""
                throw ValidationError("--max-connections must be from 1 to \(budget); got \(maxConnections)\(why).")
            }
            limits.maxConnections = maxConnections
        }
        guard maxConnectionsPerClient >= 1 else {
            throw ValidationError("--max-connections-per-client must be at least 1; got \(maxConnectionsPerClient).")
        }
        limits.maxConnectionsPerClient = maxConnectionsPerClient
        return limits
    }

    func run() async throws {
        var logger = Logger(label: "wallet-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        // The certificate and key first: a refused key file stops the start before anything opens.
        let served = try tlsOptions.load()
        if let served { logger.info("\(served.summary)") }
        let issuer = try await common.openIssuer(logger: logger)
        let escrow = try await escrowOptions.connect(issuer: issuer, devFunding: common.devFunding, logger: logger)
        let secret = try KeyDirectory(path: common.keys).read("secret.key")
        let tokens = AccessTokens(secret: secret)
        let metrics = IssuerMetrics()
        metrics.bootstrapSwiftMetrics()
        let (log, host, portFile, database, currency) = (
            logger, host, portFile, common.postgresURL == nil ? common.database : "postgres", common.currency
        )
        var settings = HTTPSettings(
            host: host, port: port, writesPerMinutePerIP: writesPerMinutePerIp, loginsPerMinutePerIP: authPerMinutePerIp,
            account: AccountLimits(writesPerMinute: writesPerMinutePerAccount))
        settings.consoleSecureCookies = consoleSecureCookies
        settings.connections = try connectionLimits()
        logger.info(
            "connections: at most \(settings.connections.maxConnections), \(settings.connections.maxConnectionsPerClient) per client address"
        )
        let app = try IssuerApplication.make(
            issuer: issuer, tokens: tokens, settings: settings, metrics: metrics, escrow: escrow,
            logger: logger, tls: served?.configuration
        ) { bound in
            // Logged and written once the socket is bound, so a reader of the port file (scripts,
            // tests with --port 0) can connect at once: the file is the readiness signal.
            log.info(
                "wallet-server on \(served == nil ? "http" : "https")://\(host):\(bound), database \(database), currency \(currency)"
            )
            if let portFile { Self.writePortFile(portFile, port: bound, logger: log) }
        }
        // Housekeeping: refund expired notes and prune sessions every minute.
        let housekeeping = Task {
            while !Task.isCancelled {
                do {
                    let swept = try await issuer.sweepExpired()
                    if swept > 0 { logger.info("refunded \(swept) expired notes") }
                    try await issuer.pruneSessions()
                } catch {
                    logger.error("housekeeping failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(60))
            }
        }
        defer { housekeeping.cancel() }
        // Escrow mode: deposits and payouts beside the API; it logs its failures and retries,
        // so the node being away never stops the server.
        let settlement = escrow.map { escrow in Task { await escrow.run() } }
        defer { settlement?.cancel() }
        guard let scrape = try metricsListenAddress() else {
            try await app.runService()
            return
        }
        let metricsListener = IssuerApplication.makeMetricsListener(
            issuer: issuer, tokens: tokens, metrics: metrics, escrow: escrow, host: scrape.host, port: scrape.port, logger: logger
        ) { bound in log.info("metrics for scrapers, without a token, on http://\(scrape.host):\(bound)/metrics") }
        // The API decides when the process stops (signals); the metrics listener stops with it,
        // and a listener that cannot start (its port taken) stops the API too.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await metricsListener.runService(gracefulShutdownSignals: []) }
            group.addTask { try await app.runService() }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Writes "PORT\n" atomically (a temporary file renamed over `path`), so a reader never
    /// sees half a number. A port file that cannot be written stops the server: whoever asked
    /// for it is waiting on it.
    static func writePortFile(_ path: String, port: Int, logger: Logger) {
        do {
            try Data("\(port)\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            logger.critical("cannot write the port file \(path): \(error). Check --port-file; stopping.")
            Foundation.exit(1)
        }
    }
}

struct CreateAdmin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Create an admin account (the first admin comes from here), or with --promote make an existing account an admin.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Admin email.") var email: String
    @Option(
        help:
            "Admin password (at least 10 characters; env WALLET_SERVER_ADMIN_PASSWORD). Not with --promote: the account keeps its own."
    )
    var password: String = ProcessInfo.processInfo.environment["WALLET_SERVER_ADMIN_PASSWORD"] ?? ""
    @Flag(help: "Make the existing account with this email an admin (its password stays).") var promote = false

    func run() async throws {
        let issuer = try await common.openIssuer(logger: Logger(label: "wallet-server"))
        if promote {
            let (id, wasAdmin) = try await issuer.promoteToAdmin(email: email)
            print(wasAdmin ? "account \(id) (\(email)) is an admin already" : "account \(id) (\(email)) is now an admin")
            return
        }
        do {
            let id = try await issuer.register(email: email, password: password, role: "admin")
            print("admin account \(id) created for \(email)")
        } catch IssuerError.emailTaken {
            FileHandle.standardError.write(
                Data(
                    "error: An account with \(email) exists. To make it an admin (its password stays): wallet-server create-admin --email \(email) --promote\n"
                        .utf8))
            throw ExitCode(1)
        }
    }
}

struct RotateKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add a new issuing key; restart the servers to sign with it. Old notes stay valid.")

    @Option(help: "Directory of the issuer's keys.")
    var keys: String = ProcessInfo.processInfo.environment["WALLET_SERVER_KEYS"] ?? "./data/keys"

    func run() throws {
        let key = try KeyDirectory(path: keys).rotate(now: Timestamp(Date().timeIntervalSince1970))
        print("new issuing key \(key.keyID) in \(keys)")
    }
}
