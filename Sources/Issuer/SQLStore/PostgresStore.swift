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
                    let conn = Connection(connection: connection, watch: state.watch, statements: state.statements, logger: logger)
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
                guard lost || { if case SQLError.retryable = translated { true } else { false } }(), attempt < Self.maxAttempts else {
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
                return try await body(Connection(connection: connection, watch: state.watch, statements: state.statements, logger: logger, inTransaction: false))
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

    struct Connection: SQLConnection {
        let connection: PostgresConnection
        let watch: ClosureWatch
        let statements: StatementCache
        let logger: Logger
        /// False under `outsideTransaction`: a lost connection is then `SQLError.outcomeUnknown`.
        var inTransaction = true
        var dialect: SQLDialect { .postgres }

        func execute(_ sql: String, _ binds: [any SQLBindable]) async throws {
            _ = try await run(sql, binds, reuse: true)
        }

        func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            try await run(sql, binds, reuse: true)
        }

        /// BEGIN, COMMIT, ROLLBACK and SET LOCAL: run as they are, never prepared.
        func control(_ sql: String) async throws {
            _ = try await run(sql, [], reuse: false)
        }

        private func run(_ sql: String, _ binds: [any SQLBindable], reuse: Bool) async throws -> [SQLRow] {
            let values = binds.map(\.sqlValue)
            let rows: [PostgresRow]
            do {
                rows = try await reuse ? reusing(sql, values) : once(sql, values)
            } catch let lost as ConnectionLost {
                if !inTransaction { throw SQLError.outcomeUnknown(lost.why) }
                throw lost
            } catch {
                if connection.isClosed || Self.isConnectionLoss(error) {
                    let lost = ConnectionLost(cause: error)
                    if !inTransaction { throw SQLError.outcomeUnknown(lost.why) }
                    throw lost
                }
                if Self.isStaleStatement(error) {
                    // The transaction is aborted; its rerun prepares the statement afresh.
                    statements.forgetAll()
                    throw SQLError.retryable("a prepared statement no longer matched its tables (\(ServerError(error)?.message ?? "")): run again")
                }
                throw PostgresStore.translate(error)
            }
            guard let first = rows.first else { return [] }
            // Every row of a result has the same columns: one array, shared by all its rows.
            let names = first.map(\.columnName)
            var out: [SQLRow] = []
            out.reserveCapacity(rows.count)
            for row in rows {
                var values: [SQLValue] = []
                values.reserveCapacity(names.count)
                for cell in row { values.append(try Self.value(cell)) }
                out.append(SQLRow(columns: names, values: values))
            }
            return out
        }

        /// Runs `sql` as the connection's unnamed statement: parsed and planned for this run only.
        private func once(_ sql: String, _ values: [SQLValue]) async throws -> [PostgresRow] {
            var bindings = PostgresBindings(capacity: values.count)
            for value in values { bindings.append(try Self.data(value)) }
            let query = PostgresQuery(unsafeSQL: Self.numberPlaceholders(sql), binds: bindings)
            return try await Self.untilClosed(connection, watch) { connection.query(query, logger: logger) }.rows
        }

        /// Runs `sql` as a statement prepared on this connection, preparing it the second time the
        /// connection sees it (parsing and planning anew was half of PostgreSQL's cost
        /// per redemption batch). A statement seen once runs unnamed, with no extra round trip.
        private func reusing(_ sql: String, _ values: [SQLValue]) async throws -> [PostgresRow] {
            let key = Self.key(sql, values)
            switch statements.use(key) {
            case .unnamed:
                return try await once(sql, values)
            case .prepared(let statement):
                return try await run(statement, values)
            case .prepare:
                let text = Self.numberPlaceholders(sql, typedAs: values)
                let statement = try await Self.untilClosed(connection, watch) { connection.prepare(query: text) }
                if let displaced = statements.keep(statement, for: key), !connection.isClosed {
                    // Closed on the server in the background; a failure leaves only its memory there.
                    _ = displaced.deallocate()
                }
                return try await run(statement, values)
            }
        }

        private func run(_ statement: PreparedQuery, _ values: [SQLValue]) async throws -> [PostgresRow] {
            let data = try values.map(Self.data)
            return try await Self.untilClosed(connection, watch) { statement.execute(data) }
        }

        /// What a prepared statement is kept under: its text and the type of each value bound to
        /// it (a statement prepared for a number must not receive text, nor one that left a
        /// parameter's type to the server receive anything but NULL there).
        static func key(_ sql: String, _ values: [SQLValue]) -> String {
            var key = sql
            key.unicodeScalars.append("\u{0}")
            for value in values {
                switch value {
                case .integer: key.unicodeScalars.append("i")
                case .text: key.unicodeScalars.append("t")
                case .blob: key.unicodeScalars.append("b")
                case .null: key.unicodeScalars.append("n")
                case .blobs: key.unicodeScalars.append("B")
                case .integers: key.unicodeScalars.append("I")
                case .texts: key.unicodeScalars.append("T")
                }
            }
            return key
        }

        /// The cast that types a parameter in a prepared statement's text. An unnamed statement
        /// declares each parameter's type in its Parse message; postgres-nio prepares with none
        /// declared, so the text carries them, and the server infers the same types as before.
        /// NULL declares none in either case.
        static func cast(_ value: SQLValue) -> String {
            switch value {
            case .integer: "::int8"
            case .text: "::text"
            case .blob: "::bytea"
            case .null: ""
            case .blobs: "::bytea[]"
            case .integers: "::int8[]"
            case .texts: "::text[]"
            }
        }

        /// A value as both paths bind it: binary, with its type (none for NULL), which an unnamed
        /// statement declares in its Parse message and a prepared one carries as a cast (`cast(_:)`).
        static func data(_ value: SQLValue) throws -> PostgresData {
            switch value {
            case .integer(let v): try encoded(v)
            case .text(let s): try encoded(s)
            case .blob(let b): try encoded(ByteBuffer(bytes: b))
            case .null: PostgresData.null
            case .blobs(let v): try encoded(v.map { ByteBuffer(bytes: $0) })
            case .integers(let v): try encoded(v)
            case .texts(let v): try encoded(v)
            }
        }

        private static func encoded<T: PostgresEncodable>(_ value: T) throws -> PostgresData {
            var buffer = ByteBuffer()
            try value.encode(into: &buffer, context: .default)
            return PostgresData(type: T.psqlType, formatCode: T.psqlFormat, value: buffer)
        }

        /// Runs the statement `start` writes but gives up as soon as the connection closes.
        /// postgres-nio 1.33.2 writes a statement to the channel with no write promise; once the
        /// channel has closed, its handlers are gone and the write fails unseen, so the
        /// statement's own promise is never completed and awaiting it never ends. The channel
        /// removes its handlers and completes `closeFuture` in the same event-loop turn, and a
        /// statement written before that is failed by the handler, so one of the two always answers.
        ///
        /// The statement is one of postgres-nio's future-based calls (all rows collected on the
        /// event loop), and whichever of its future and the closure comes first resumes the caller
        /// straight from the event loop: no task per statement. A statement the closure beat is
        /// simply never answered; nothing waits for it.
        static func untilClosed<T: Sendable>(
            _ connection: PostgresConnection, _ watch: ClosureWatch, _ start: () -> EventLoopFuture<T>
        ) async throws -> T {
            if connection.isClosed { throw ConnectionLost(cause: nil) }
            return try await withCheckedThrowingContinuation { continuation in
                let outcome = FirstOutcome(continuation)
                guard let token = watch.add({ outcome.resume(with: .failure(ConnectionLost(cause: nil))) }) else {
                    outcome.resume(with: .failure(ConnectionLost(cause: nil)))
                    return
                }
                start().whenComplete { result in
                    watch.remove(token)
                    outcome.resume(with: result.mapError { $0 })
                }
            }
        }

        /// Connection failures as postgres-nio reports them (in either of its error types), and
        /// the server's own notice that it ends the session (57P01 from pg_terminate_backend,
        /// 57P02/57P03, class 08).
        static func isConnectionLoss(_ error: any Error) -> Bool {
            if let psql = error as? PSQLError,
                [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(psql.code)
            {
                return true
            }
            switch error as? PostgresError {
            case .connectionClosed?: return true
            case .protocol(let message)? where message.contains("connection close"): return true
            default: break
            }
            guard let state = ServerError(error)?.state else { return false }
            return ["57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
        }

        /// The server no longer holds the statement as it was prepared: a table under it changed
        /// the shape of its result (0A000, "cached plan must not change result type"), or the
        /// statement is gone (26000). The cache is stale; the transaction can run again.
        static func isStaleStatement(_ error: any Error) -> Bool {
            guard let server = ServerError(error) else { return false }
            return server.state == "26000" || (server.state == "0A000" && server.message.contains("cached plan"))
        }

        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            var cell = cell
            // postgres-nio asks for every result in binary; its prepared-statement API keeps the
            // format the server's description gave before that choice (text), so say it again.
            cell.format = .binary
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea:
                let buffer = try cell.decode(ByteBuffer.self)
                return .blob(Array(buffer.readableBytesView))
            default: return .text(try cell.decode(String.self))
            }
        }

        /// Rewrites `?` placeholders to PostgreSQL's `$1, $2, …` (the project's SQL has no `?` in
        /// literals), each followed by its value's cast when `values` are given (`cast(_:)`).
        /// Byte by byte: a batch's statement may hold over a thousand placeholders, and walking it
        /// by Character (grapheme breaking) showed in the load profile. `?` is one byte in UTF-8
        /// and never part of another character's encoding.
        static func numberPlaceholders(_ sql: String, typedAs values: [SQLValue]? = nil) -> String {
            var out: [UInt8] = []
            out.reserveCapacity(sql.utf8.count + 16)
            var n = 0
            for byte in sql.utf8 {
                if byte == UInt8(ascii: "?") {
                    n += 1
                    out.append(UInt8(ascii: "$"))
                    out += String(n).utf8
                    if let values, n <= values.count { out += cast(values[n - 1]).utf8 }
                } else {
                    out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

/// Resumes a continuation once, with whichever of a statement and the connection's closure ends first.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }

    func resume(with result: Result<T, any Error>) {
        continuation.withLock { c in
            defer { c = nil }
            return c
        }?.resume(with: result)
    }
}

/// Runs the waiters of one connection's statements when the connection closes. One callback
/// on `closeFuture` per connection, not per statement: a pooled connection lives long, and
/// callbacks on its `closeFuture` are kept until it closes.
final class ClosureWatch: Sendable {
    private struct State {
        var closed = false
        var next: UInt64 = 0
        var waiters: [UInt64: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())

    /// Registers `waiter`; nil when the connection has already closed (nothing registered).
    func add(_ waiter: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { s in
            guard !s.closed else { return nil }
            s.next += 1
            s.waiters[s.next] = waiter
            return s.next
        }
    }

    func remove(_ token: UInt64) {
        _ = state.withLock { $0.waiters.removeValue(forKey: token) }
    }

    func close() {
        let waiters = state.withLock { s in
            s.closed = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter() }
    }
}

/// What the store keeps for each open connection, by connection: the watch on its closure and
/// its prepared statements. Made on a connection's first lease, dropped when it closes.
final class ConnectionStates: Sendable {
    final class State: Sendable {
        let watch = ClosureWatch()
        let statements = StatementCache()
    }

    private let byID = Mutex<[PostgresConnection.ID: State]>([:])

    func state(of connection: PostgresConnection) -> State {
        let (state, isNew) = byID.withLock { map in
            if let s = map[connection.id] { return (s, false) }
            let s = State()
            map[connection.id] = s
            return (s, true)
        }
        if isNew {
            // Runs in the event-loop turn that removes the channel's handlers (see untilClosed).
            connection.closeFuture.whenComplete { _ in
                self.byID.withLock { map in
                    if map[connection.id] === state { map[connection.id] = nil }
                }
                state.watch.close()
            }
        }
        return state
    }
}

/// One connection's prepared statements, by SQL text and bind types (`Connection.key`). A
/// statement is prepared the second time the connection runs it, so a one-off costs no extra
/// round trip; at most `capacity` are kept, and the least recently used one is closed to make
/// room. A connection is leased by one transaction at a time: the lock only makes this Sendable.
final class StatementCache: Sendable {
    enum Use {
        /// Run it unnamed: the first sighting.
        case unnamed
        /// Prepare it, then run it: the second sighting.
        case prepare
        /// Run this statement, prepared earlier.
        case prepared(PreparedQuery)
    }

    /// Statements kept prepared per connection: the hot paths use a few dozen.
    static let capacity = 64
    /// Texts remembered as seen once, before the memory is cleared and starts again.
    static let remembered = 1_024

    private struct State {
        var seen: Set<String> = []
        var prepared: [String: (statement: PreparedQuery, used: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// How to run the statement under `key` now.
    func use(_ key: String) -> Use {
        state.withLock { s in
            s.clock += 1
            if let kept = s.prepared[key] {
                s.prepared[key] = (kept.statement, s.clock)
                return .prepared(kept.statement)
            }
            if s.seen.remove(key) != nil { return .prepare }
            if s.seen.count >= Self.remembered { s.seen.removeAll(keepingCapacity: true) }
            s.seen.insert(key)
            return .unnamed
        }
    }

    /// Keeps `statement` under `key`; returns the statement it displaced, for the caller to close.
    func keep(_ statement: PreparedQuery, for key: String) -> PreparedQuery? {
        state.withLock { s in
            var displaced: PreparedQuery?
            if s.prepared[key] == nil, s.prepared.count >= Self.capacity,
                let oldest = s.prepared.min(by: { $0.value.used < $1.value.used })
            {
                displaced = oldest.value.statement
                s.prepared[oldest.key] = nil
            }
            s.clock += 1
            s.prepared[key] = (statement, s.clock)
            return displaced
        }
    }

    /// Forgets every statement (stale after a schema change); each is prepared again on use. The
    /// old ones stay on the server, unused, until the connection closes: this happens only when
    /// a table under them changed.
    func forgetAll() {
        state.withLock { $0 = State() }
    }

    /// Statements kept now.
    var count: Int { state.withLock { $0.prepared.count } }
}
