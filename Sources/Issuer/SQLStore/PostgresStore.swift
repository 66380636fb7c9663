import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// PostgreSQL behind the async SQL interface, through postgres-nio's connection pool.
/// Several server processes may share one database: correctness relies on constraints
/// inside transactions, never on in-process locks.
public final class PostgresStore: SQLDatabase {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let retries = Atomic<Int>(0)
    /// Per open connection, made on its first lease and dropped when it closes: the watch on its
    /// closure and its prepared statements.
    private let connections = ConnectionStates()
    public var dialect: SQLDialect { .postgres }

    /// Transactions rerun after a deadlock or serialization failure since start. Healthy
    /// workloads without real conflicts keep this at zero; tests assert it.
    public var conflictRetries: Int { retries.load(ordering: .relaxed) }

    /// Connects to `postgres://user[:password]@host[:port]/database[?search_path=schema]`.
    /// Nothing is dialled yet: the pool connects on first use and retries without end while
    /// the server is down. A process starting up should use `connect(url:…)` instead.
    public convenience init(url: String, maxConnections: Int = 20, logger: Logger = Logger(label: "sql.postgres")) throws {
        self.init(configuration: try Endpoint(url: url).clientConfiguration(maxConnections: maxConnections), logger: logger)
    }

    /// Checks that PostgreSQL at `url` answers, trying again for at most `patience` while it
    /// cannot be reached (refused, unresolvable, starting up), then opens the pool. Fails at
    /// once when the server answers with a refusal that waiting cannot fix (bad password,
    /// unknown database or user), and after `patience` otherwise, with the last cause.
    public static func connect(
        url: String, maxConnections: Int = 20, patience: Duration = .seconds(30), logger: Logger = Logger(label: "sql.postgres")
    ) async throws -> PostgresStore {
        let endpoint = try Endpoint(url: url)
        try await endpoint.waitUntilReachable(patience: patience, logger: logger)
        return PostgresStore(configuration: endpoint.clientConfiguration(maxConnections: maxConnections), logger: logger)
    }

    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Self.start(client)
    }

    /// Runs the pool. Where the toolchain allows, the task starts on the spot, so `run()` has
    /// been entered before the first lease (otherwise postgres-nio warns that it was not).
    private static func start(_ client: PostgresClient) -> Task<Void, Never> {
        #if compiler(>=6.2)
        if #available(macOS 26, iOS 26, *) { return Task.immediate { await client.run() } }
        #endif
        return Task { await client.run() }
    }

    /// Where a URL points, parsed once for the pool and for the start-up probe.
    struct Endpoint {
        let host: String
        let port: Int
        let user: String
        let password: String?
        let database: String?
        let schema: String?
        /// `application_name`, which names the connections in pg_stat_activity.
        let applicationName: String?

        init(url: String) throws {
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                let host = components.host, let user = components.user
            else { throw SQLError.failed("not a postgres:// URL: \(Self.redacted(url))") }
            self.host = host
            port = components.port ?? 5432
            self.user = user
            password = components.password
            database = components.path.split(separator: "/").first.map(String.init)
            schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value
            applicationName = components.queryItems?.first(where: { $0.name == "application_name" })?.value
        }

        /// The URL as it may be shown: a password in it (`user:password@`) becomes `***`. The
        /// refusal above is printed at start and may be logged; the password must not be.
        static func redacted(_ url: String) -> String {
            guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"), scheme.upperBound < at,
                let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
            else { return url }
            return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
        }

        func clientConfiguration(maxConnections: Int) -> PostgresClient.Configuration {
            var config = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: .disable)
            config.options.maximumConnections = maxConnections
            config.options.additionalStartupParameters = [("search_path", schema), ("application_name", applicationName)]
                .compactMap { name, value in
                    value.map { (name, $0) }
                }
            return config
        }

        func waitUntilReachable(patience: Duration, logger: Logger) async throws {
            let clock = ContinuousClock()
            let deadline = clock.now + patience
            var pause = Duration.milliseconds(100)
            var attempt = 1
            while true {
                var config = PostgresConnection.Configuration(
                    host: host, port: port, username: user, password: password, database: database, tls: .disable)
                // One attempt may take what is left of the patience (a silent host), never less than 0.1 s.
                let left = (deadline - clock.now).components
                config.options.connectTimeout = .nanoseconds(
                    max(100_000_000, left.seconds * 1_000_000_000 + left.attoseconds / 1_000_000_000))
                do {
                    let connection = try await PostgresConnection.connect(configuration: config, id: 0, logger: logger)
                    try? await connection.close()
                    return
                } catch {
                    let cause = Self.describe(error)
                    if let state = (error as? PSQLError)?.serverInfo?[.sqlState], !Self.transient(sqlState: state) {
                        throw SQLError.failed("PostgreSQL at \(host):\(port) refused the connection: \(cause)")
                    }
                    let left = deadline - clock.now
                    guard left > .zero else {
                        throw SQLError.failed(
                            "cannot reach PostgreSQL at \(host):\(port) after \(Self.seconds(patience)) s: \(cause)")
                    }
                    if attempt == 1 {
                        logger.warning(
                            "PostgreSQL at \(host):\(port) is not reachable (\(cause)); trying again for up to \(Self.seconds(patience)) s"
                        )
                    }
                    attempt += 1
                    try await Task.sleep(for: min(pause, left))
                    pause = min(pause * 2, .seconds(2))
                }
            }
        }

        /// `2`, `0.5`: the patience as the operator gave it.
        static func seconds(_ d: Duration) -> String {
            let value = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return value == value.rounded() ? String(Int64(value)) : String(value)
        }

        /// Server refusals worth waiting out: the server is starting, shutting down or full.
        static func transient(sqlState: String) -> Bool {
            ["57P03", "57P01", "57P02", "53300", "08006", "08001"].contains(sqlState)
        }

        /// The cause in words. PSQLError hides everything behind a generic description (it may
        /// reach end users); here it goes to the operator starting the server.
        static func describe(_ error: any Error) -> String {
            guard let psql = error as? PSQLError else { return String(describing: error) }
            if let message = psql.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(psql.serverInfo?[.sqlState] ?? "?"))"
            }
            if let underlying = psql.underlying { return String(describing: underlying) }
            return String(describing: psql.code)
        }
    }

    public func close() async {
        runner.cancel()
        _ = await runner.value
    }

    /// Deadlocks and serialization failures roll the whole transaction back and are retried
    /// (up to `maxAttempts`, with jittered backoff): `body` must have no effects outside the
    /// database, which is true of every caller in this project. So is a connection lost before
    /// COMMIT was sent (cut, server restarted): the server rolled the transaction back, and the
    /// rerun leases another connection. A connection lost during COMMIT fails the transaction
    /// (whether it committed is unknown, so only the caller may repeat it, idempotently).
    ///
    /// BEGIN, COMMIT and ROLLBACK are run here rather than by postgres-nio's `withTransaction`,
    /// and every statement is bounded by the connection's closure (`Connection.run`): postgres-nio
    /// 1.33.2 never answers a statement written to a connection whose channel has already closed
    /// (the ROLLBACK it sends after a failed statement on a cut connection, or the next statement
    /// of a body), so a cut connection held its transaction, its request and shutdown for ever.
    public func transaction<T: Sendable>(durable: Bool, _ body: (any SQLConnection) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                // One attempt on one leased connection. It throws `ConnectionLost` when the
                // connection closed before COMMIT was sent: nothing was committed.
                return try await client.withConnection(isolation: #isolation) { connection in
                    let state = connections.state(of: connection)
                    let conn = Connection(
                        connection: connection, watch: state.watch, statements: state.statements, logger: logger)
                    let value: T
                    do {
                        try await conn.control("BEGIN")
                        if !durable { try await conn.control("SET LOCAL synchronous_commit = off") }
                        value = try await body(conn)
                    } catch {
                        // Whatever the body made of the error, a closed connection means the server
                        // ended the transaction without committing it: worth a rerun elsewhere.
                        if conn.connection.isClosed { throw ConnectionLost(cause: error) }
                        do {
                            try await conn.control("ROLLBACK")
                        } catch {
                            // A connection left inside a transaction must not go back to the pool.
                            try? await conn.connection.close()
                        }
                        throw error
                    }
                    do {
                        try await conn.control("COMMIT")
                    } catch {
                        if conn.connection.isClosed || error is ConnectionLost {
                            throw SQLError.failed(
                                "the connection to PostgreSQL was lost during COMMIT, so whether the transaction committed is unknown; repeat it only if repeating is harmless (an idempotent request with the same bytes)"
                            )
                        }
                        throw error
                    }
                    return value
                }
            } catch {
                let translated = Self.translate(error)
                let lost = error is ConnectionLost
                guard lost || { if case SQLError.retryable = translated { true } else { false } }(), attempt < Self.maxAttempts
                else {
                    throw translated
                }
                if !lost { retries.add(1, ordering: .relaxed) }
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << attempt))))
            }
        }
    }

    /// Statements outside a transaction on one leased connection (see the protocol). A
    /// connection lost under a statement throws `SQLError.outcomeUnknown` from that statement.
    public func outsideTransaction<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection(isolation: #isolation) { connection in
                let state = connections.state(of: connection)
                return try await body(
                    Connection(
                        connection: connection, watch: state.watch, statements: state.statements, logger: logger,
                        inTransaction: false))
            }
        } catch let lost as ConnectionLost {
            // Lost before a statement was sent (leasing, or a closure that beat it): unknown all the same.
            throw SQLError.outcomeUnknown(lost.why)
        } catch {
            throw Self.translate(error)
        }
    }

    /// The connection closed under a statement (cut by pg_terminate_backend, the server
    /// restarted, the network failed): the statement has no answer and never will.
    struct ConnectionLost: Error, CustomStringConvertible {
        var cause: (any Error)?
        var description: String {
            "the connection to PostgreSQL was lost mid-transaction (\(why)); the transaction was rolled back: retry"
        }
        /// The cause alone, for `SQLError.outcomeUnknown`.
        var why: String { "connection to PostgreSQL lost: " + (cause.map { Endpoint.describe($0) } ?? "closed") }
    }

    static let maxAttempts = 6

    static func translate(_ error: any Error) -> any Error {
        if let e = error as? SQLError { return e }
        if let lost = error as? ConnectionLost { return SQLError.retryable(lost.description) }
        if let server = ServerError(error) {
            if server.state == "23505" { return SQLError.uniqueViolation(server.message) }
            if server.state == "40P01" || server.state == "40001" { return SQLError.retryable(server.message) }
            return SQLError.failed("postgres \(server.state): \(server.message)")
        }
        if let psql = error as? PSQLError { return SQLError.failed("postgres ?: \(String(describing: psql.code))") }
        return error
    }

    /// A refusal from the server, read from either of postgres-nio's error types: its
    /// prepared-statement API (`PreparedQuery`) reports the older `PostgresError`, the rest `PSQLError`.
    struct ServerError {
        let state: String
        let message: String

        init?(_ error: any Error) {
            if let psql = error as? PSQLError, let info = psql.serverInfo {
                state = info[.sqlState] ?? "?"
                message = info[.message] ?? String(describing: psql.code)
            } else if case .server(let refusal)? = error as? PostgresError {
                state = refusal.fields[.sqlState] ?? "?"
                message = refusal.fields[.message] ?? "?"
            } else {
                return nil
            }
        }
    }
}
