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
            var config = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
            config.options.maximumConnections = maxConnections
            config.options.additionalStartupParameters = [("search_path", schema), ("application_name", applicationName)].compactMap { name, value in
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
                var config = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
                // One attempt may take what is left of the patience (a silent host), never less than 0.1 s.
                let left = (deadline - clock.now).components
                config.options.connectTimeout = .nanoseconds(max(100_000_000, left.seconds * 1_000_000_000 + left.attoseconds / 1_000_000_000))
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
                        throw SQLError.failed("cannot reach PostgreSQL at \(host):\(port) after \(Self.seconds(patience)) s: \(cause)")
                    }
                    if attempt == 1 {
                        logger.warning("PostgreSQL at \(host):\(port) is not reachable (\(cause)); trying again for up to \(Self.seconds(patience)) s")
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
    /// database, which is true of every caller in this project.
    public func transaction<T: Sendable>(durable: Bool, _ body: (any SQLConnection) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    let conn = Connection(connection: connection, logger: logger)
                    if !durable { try await conn.execute("SET LOCAL synchronous_commit = off") }
                    return try await body(conn)
                }
            } catch {
                let translated = Self.translate((error as? PostgresTransactionError).flatMap { $0.closureError ?? $0.beginError ?? $0.commitError } ?? error)
                guard case SQLError.retryable = translated, attempt < Self.maxAttempts else { throw translated }
                retries.add(1, ordering: .relaxed)
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << attempt))))
            }
        }
    }

    static let maxAttempts = 6

    static func translate(_ error: any Error) -> any Error {
        if let e = error as? SQLError { return e }
        if let psql = error as? PSQLError {
            let code = psql.serverInfo?[.sqlState]
            let message = psql.serverInfo?[.message] ?? String(describing: psql.code)
            if code == "23505" { return SQLError.uniqueViolation(message) }
            if code == "40P01" || code == "40001" { return SQLError.retryable(message) }
            return SQLError.failed("postgres \(code ?? "?"): \(message)")
        }
        return error
    }

    struct Connection: SQLConnection {
        let connection: PostgresConnection
        let logger: Logger
        var dialect: SQLDialect { .postgres }

        func execute(_ sql: String, _ binds: [any SQLBindable]) async throws {
            _ = try await run(sql, binds)
        }

        func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            try await run(sql, binds)
        }

        private func run(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            var bindings = PostgresBindings(capacity: binds.count)
            for bind in binds {
                switch bind.sqlValue {
                case .integer(let v): bindings.append(v)
                case .text(let s): bindings.append(s)
                case .blob(let b): bindings.append(ByteBuffer(bytes: b))
                case .null: bindings.appendNull()
                }
            }
            let query = PostgresQuery(unsafeSQL: Self.numberPlaceholders(sql), binds: bindings)
            do {
                let rows = try await connection.query(query, logger: logger)
                var out: [SQLRow] = []
                for try await row in rows {
                    var names: [String] = []
                    var values: [SQLValue] = []
                    for cell in row {
                        names.append(cell.columnName)
                        values.append(try Self.value(cell))
                    }
                    out.append(SQLRow(columns: names, values: values))
                }
                return out
            } catch {
                throw PostgresStore.translate(error)
            }
        }

        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea:
                let buffer = try cell.decode(ByteBuffer.self)
                return .blob(Array(buffer.readableBytesView))
            default: return .text(try cell.decode(String.self))
            }
        }

        /// Rewrites `?` placeholders to PostgreSQL's `$1, $2, …` (the project's SQL has no `?` in literals).
        static func numberPlaceholders(_ sql: String) -> String {
            var out = ""
            out.reserveCapacity(sql.count + 16)
            var n = 0
            for ch in sql {
                if ch == "?" {
                    n += 1
                    out += "$\(n)"
                } else {
                    out.append(ch)
                }
            }
            return out
        }
    }
}
