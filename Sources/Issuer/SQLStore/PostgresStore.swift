import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// PostgreSQL behind the async SQL interface, through postgres-nio's connection pool.
/// Several server processes may share one database: correctness relies on constraints
/// inside transactions, never on in-process locks.
///
/// Given several hosts (a primary and its standbys), it uses only the one that accepts writes
/// and follows a failover to the new one (`Primary`); with one host it simply uses that one.
public final class PostgresStore: SQLDatabase {
    /// One pool for one host, or the pool that follows the primary among several.
    private enum Pools: Sendable {
        case one(PostgresClient, runner: Task<Void, Never>)
        case several(Primary)
    }
    private let pools: Pools
    private let logger: Logger
    private let retries = Atomic<Int>(0)
    /// Per open connection, made on its first lease and dropped when it closes: the watch on its
    /// closure and its prepared statements.
    private let connections = ConnectionStates()
    public var dialect: SQLDialect { .postgres }

    /// Transactions rerun after a deadlock or serialization failure since start. Healthy
    /// workloads without real conflicts keep this at zero; tests assert it.
    public var conflictRetries: Int { retries.load(ordering: .relaxed) }

    /// Connects to `postgres://user[:password]@host[:port]/database[?search_path=schema]`, or
    /// to several hosts as libpq takes them (`postgres://user@a:5432,b:5433/db`, or
    /// `host=a,b port=5432,5433 user=u dbname=db`), of which it uses the one that accepts
    /// writes. Nothing is dialled yet: the pool connects on first use and retries without end
    /// while a single server is down. A process starting up should use `connect(url:…)` instead.
    public convenience init(url: String, maxConnections: Int = 20, logger: Logger = Logger(label: "sql.postgres")) throws {
        let endpoint = try Endpoint(url: url)
        if endpoint.hosts.count == 1 {
            self.init(configuration: endpoint.clientConfiguration(host: 0, maxConnections: maxConnections), logger: logger)
        } else {
            self.init(
                primary: Primary(
                    endpoint: endpoint, host: 0, timeline: 0, maxConnections: maxConnections, patience: .seconds(30),
                    logger: logger),
                logger: logger)
        }
    }

    /// Checks that PostgreSQL at `url` answers, trying again for at most `patience` while it
    /// cannot be reached (refused, unresolvable, starting up), then opens the pool. Fails at
    /// once when the server answers with a refusal that waiting cannot fix (bad password,
    /// unknown database or user), and after `patience` otherwise, with the last cause.
    ///
    /// With several hosts it waits, as long, for one that accepts writes, and later looks for
    /// the new primary for at most `failoverPatience` each time the primary is lost; requests
    /// that cannot wait so long fail with an error that says to retry.
    public static func connect(
        url: String, maxConnections: Int = 20, patience: Duration = .seconds(30), failoverPatience: Duration = .seconds(30),
        logger: Logger = Logger(label: "sql.postgres")
    ) async throws -> PostgresStore {
        let endpoint = try Endpoint(url: url)
        if endpoint.hosts.count == 1 {
            try await endpoint.waitUntilReachable(patience: patience, logger: logger)
            return PostgresStore(
                configuration: endpoint.clientConfiguration(host: 0, maxConnections: maxConnections), logger: logger)
        }
        let (host, timeline) = try await endpoint.waitForPrimary(patience: patience, logger: logger)
        let primary = Primary(
            endpoint: endpoint, host: host, timeline: timeline, maxConnections: maxConnections, patience: failoverPatience,
            logger: logger)
        return PostgresStore(primary: primary, logger: logger)
    }

    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        pools = .one(client, runner: Self.start(client))
    }

    private init(primary: Primary, logger: Logger) {
        self.logger = logger
        pools = .several(primary)
    }

    /// The pool to lease from now, and its generation (always 0 with one host).
    private func pool() async throws -> (client: PostgresClient, generation: Int) {
        switch pools {
        case .one(let client, _): (client, 0)
        case .several(let primary): try await primary.pool()
        }
    }

    /// The primary's tracker, with several hosts.
    private var primary: Primary? {
        if case .several(let primary) = pools { primary } else { nil }
    }

    /// Runs the pool. Where the toolchain allows, the task starts on the spot, so `run()` has
    /// been entered before the first lease (otherwise postgres-nio warns that it was not).
    static func start(_ client: PostgresClient) -> Task<Void, Never> {
        #if compiler(>=6.2)
        if #available(macOS 26, iOS 26, *) { return Task.immediate { await client.run() } }
        #endif
        return Task { await client.run() }
    }

    public func close() async {
        switch pools {
        case .one(_, let runner):
            runner.cancel()
            _ = await runner.value
        case .several(let primary):
            await primary.close()
        }
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
    ///
    /// With several hosts, an attempt that finds the primary gone (the connection or its pool
    /// failed before COMMIT was sent, or the server answered as a standby) waits for the
    /// primary to be found again (`Primary.recover`, bounded) and runs again there; a
    /// transaction whose COMMIT went unanswered is never rerun, as above.
    public func transaction<T: Sendable>(durable: Bool, _ body: (any SQLConnection) async throws -> T) async throws -> T {
        var attempt = 1
        var failoverDeadline: ContinuousClock.Instant?
        while true {
            let (client, generation) = try await pool()
            do {
                // One attempt on one leased connection. It throws `ConnectionLost` when the
                // connection closed before COMMIT was sent: nothing was committed.
                return try await client.withConnection(isolation: #isolation) { connection in
                    let state = connections.state(of: connection)
                    let conn = Connection(connection: connection, state: state, logger: logger)
                    if primary != nil { try await conn.checkPrimary() }
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
                        // A standby refused a write: nothing was written, and the primary is elsewhere.
                        if primary != nil, state.answeredAsStandby.load(ordering: .relaxed) {
                            try? await conn.connection.close()
                            throw NotPrimary()
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
                if let primary, Self.lostPrimary(error) {
                    // Bounded as a whole, not only per search: a primary found but failing again
                    // at once must not keep the request for ever.
                    let deadline = failoverDeadline ?? ContinuousClock.now + primary.patience
                    failoverDeadline = deadline
                    guard ContinuousClock.now < deadline else { throw Self.translate(error) }
                    try await primary.recover(from: generation)
                    continue
                }
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
    ///
    /// With several hosts, a failure before `body` started (no connection to the primary, or
    /// the connection is to a standby) waits for the primary and leases there; once `body` has
    /// run a statement nothing is rerun, and the search for the primary starts in the background.
    public func outsideTransaction<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        while true {
            let (client, generation) = try await pool()
            var started = false
            do {
                return try await client.withConnection(isolation: #isolation) { connection in
                    let state = connections.state(of: connection)
                    let conn = Connection(connection: connection, state: state, logger: logger, inTransaction: false)
                    if primary != nil { try await conn.checkPrimary() }
                    started = true
                    return try await body(conn)
                }
            } catch {
                if let primary, Self.lostPrimary(error) || Self.isOutcomeUnknown(error) {
                    if !started {
                        try await primary.recover(from: generation)
                        continue
                    }
                    Task { try? await primary.recover(from: generation) }
                }
                if let lost = error as? ConnectionLost {
                    // Lost before a statement was sent (leasing, or a closure that beat it): unknown all the same.
                    throw SQLError.outcomeUnknown(lost.why)
                }
                throw Self.translate(error)
            }
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

    static func isOutcomeUnknown(_ error: any Error) -> Bool {
        if case SQLError.outcomeUnknown? = error as? SQLError { true } else { false }
    }

    static func translate(_ error: any Error) -> any Error {
        if let e = error as? SQLError { return e }
        if let lost = error as? ConnectionLost { return SQLError.retryable(lost.description) }
        if let standby = error as? NotPrimary { return SQLError.failed(standby.description) }
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
