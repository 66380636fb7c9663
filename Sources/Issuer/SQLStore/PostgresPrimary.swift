import Foundation
import Logging
import PostgresNIO
import Synchronization

// Several PostgreSQL hosts, one of which accepts writes (a primary and its standbys, as
// pg_auto_failover runs them): the store's pool always points at the host found to be primary,
// and moves to the new one when that host is lost or demoted.

extension PostgresStore {
    /// The pool to the host that accepts writes, among `endpoint.hosts`, and the search for it.
    ///
    /// Invariant: every connection the store hands out belongs to the pool of the current
    /// generation and was checked to be on a primary (`pg_is_in_recovery()` false) before its
    /// first statement, so no write goes to a standby, and a host demoted since (a restart as
    /// standby closes every connection) is left at the first failure. A new generation starts
    /// only once a host has answered that it is primary; the old pool is then shut down, which
    /// fails the leases still waiting on it, and their transactions run again on the new one.
    final class Primary: Sendable {
        private struct Current {
            var client: PostgresClient
            var runner: Task<Void, Never>
            var host: Int
            var generation: Int
            /// The search under way, which every caller that lost the primary waits on.
            var search: Task<Void, any Error>?
            var closed = false
        }

        let endpoint: Endpoint
        let maxConnections: Int
        /// How long a search for the primary may last before it gives up (and requests fail).
        let patience: Duration
        /// How often the current host is asked whether it is still the primary.
        static let heartbeat = Duration.seconds(1)
        private let logger: Logger
        private let current: Mutex<Current>
        private let watcher = Mutex<Task<Void, Never>?>(nil)

        /// Starts with a pool to `hosts[host]`, which is checked like any other on first use.
        init(endpoint: Endpoint, host: Int, maxConnections: Int, patience: Duration, logger: Logger) {
            self.endpoint = endpoint
            self.maxConnections = maxConnections
            self.patience = patience
            self.logger = logger
            let client = PostgresClient(
                configuration: endpoint.clientConfiguration(host: host, maxConnections: maxConnections), backgroundLogger: logger)
            current = Mutex(Current(client: client, runner: PostgresStore.start(client), host: host, generation: 0))
            // Notices a lost primary between requests, so that a request does not wait on a
            // pool whose host is gone (postgres-nio keeps such a lease waiting for a minute).
            watcher.withLock { $0 = Task { [weak self] in await self?.watch() } }
        }

        /// The pool to use now, after any search under way; its generation is what `recover`
        /// is given when that pool fails.
        func pool() async throws -> (client: PostgresClient, generation: Int) {
            let (client, generation, search) = current.withLock { ($0.client, $0.generation, $0.search) }
            if let search {
                try await search.value
                return current.withLock { ($0.client, $0.generation) }
            }
            return (client, generation)
        }

        /// The pool of `generation` failed as a lost primary does: finds the primary among the
        /// hosts (one search, whoever asks), trying for at most `patience`. Returns at once when
        /// a newer generation exists. Throws `SQLError.failed` saying no host accepts writes.
        func recover(from generation: Int) async throws {
            let search: Task<Void, any Error>? = current.withLock { c in
                guard c.generation == generation, !c.closed else { return nil }
                if let search = c.search { return search }
                let search = Task { try await self.search() }
                c.search = search
                return search
            }
            try await search?.value
        }

        private func search() async throws {
            let clock = ContinuousClock()
            let deadline = clock.now + patience
            let first = current.withLock { $0.host }
            logger.warning(
                "PostgreSQL at \(endpoint.describe(host: first)) may no longer be the primary; looking for the primary among \(endpoint.hostList)"
            )
            var causes: [String] = []
            while true {
                causes = []
                // The current host first: a cut connection is not a failover.
                for offset in endpoint.hosts.indices {
                    let host = (first + offset) % endpoint.hosts.count
                    let left = deadline - clock.now
                    switch await endpoint.probe(
                        host: host, timeout: min(max(left, .milliseconds(100)), .seconds(5)), logger: logger)
                    {
                    case .primary:
                        adopt(host)
                        return
                    case .standby:
                        causes.append("\(endpoint.describe(host: host)) is a standby")
                    case .unreachable(let cause), .refused(let cause):
                        causes.append("\(endpoint.describe(host: host)): \(cause)")
                    }
                }
                guard clock.now < deadline, !Task.isCancelled else { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
            current.withLock { $0.search = nil }
            throw SQLError.failed(
                "no PostgreSQL host accepts writes after \(Endpoint.seconds(patience)) s (\(causes.joined(separator: "; "))); a failover may still be under way: retry shortly"
            )
        }

        /// Makes `host` the current one: a new pool when it changed, the old one shut down.
        private func adopt(_ host: Int) {
            let old: Task<Void, Never>? = current.withLock { c in
                defer { c.search = nil }
                guard c.host != host, !c.closed else { return nil }
                let client = PostgresClient(
                    configuration: endpoint.clientConfiguration(host: host, maxConnections: maxConnections),
                    backgroundLogger: logger)
                let old = c.runner
                c = Current(client: client, runner: PostgresStore.start(client), host: host, generation: c.generation + 1)
                return old
            }
            if let old {
                logger.warning("PostgreSQL primary is now \(endpoint.describe(host: host))")
                old.cancel()
            }
        }

        private func watch() async {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.heartbeat)
                guard !Task.isCancelled else { return }
                let (host, generation, searching) = current.withLock { ($0.host, $0.generation, $0.search != nil) }
                guard !searching else { continue }
                if case .primary = await endpoint.probe(host: host, timeout: .seconds(2), logger: logger) { continue }
                try? await recover(from: generation)
            }
        }

        func close() async {
            let (runner, search) = current.withLock { c in
                c.closed = true
                return (c.runner, c.search)
            }
            let watch = watcher.withLock { $0 }
            watch?.cancel()
            search?.cancel()
            _ = await search?.result
            await watch?.value
            runner.cancel()
            await runner.value
        }
    }

    /// What the store makes of a failure when it has several hosts: the primary may be gone
    /// (the connection or the pool failed, or the server is a standby now). Nothing was
    /// committed by the failed attempt in any of these cases.
    static func lostPrimary(_ error: any Error) -> Bool {
        if error is ConnectionLost || error is NotPrimary { return true }
        if let psql = error as? PSQLError,
            [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed].contains(
                psql.code)
        {
            return true
        }
        if let state = ServerError(error)?.state {
            return ["25006", "57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
        }
        // The pool gave up connecting (its circuit breaker), before any statement was sent.
        return String(reflecting: type(of: error)).contains("ConnectionPoolError")
    }

    /// The server answered that it does not accept writes: a standby (read_only_sql_transaction,
    /// or `pg_is_in_recovery()` on a new connection). The transaction wrote nothing.
    struct NotPrimary: Error, CustomStringConvertible {
        var description: String {
            "PostgreSQL answered as a standby (it does not accept writes); retry once the primary is found"
        }
    }
}

extension PostgresStore.Endpoint {
    enum Role {
        case primary, standby
        /// No answer, or a refusal worth waiting out (starting up, shutting down, full).
        case unreachable(String)
        /// A refusal that waiting cannot fix (bad password, unknown database or user).
        case refused(String)
    }

    /// Waits, for at most `patience`, until one of the hosts accepts writes; returns its index.
    /// Fails at once on a refusal that waiting cannot fix, and after `patience` otherwise,
    /// with what each host answered last.
    func waitForPrimary(patience: Duration, logger: Logger) async throws -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var warned = false
        while true {
            var causes: [String] = []
            for host in hosts.indices {
                let left = deadline - clock.now
                switch await probe(host: host, timeout: min(max(left, .milliseconds(100)), .seconds(5)), logger: logger) {
                case .primary: return host
                case .standby: causes.append("\(describe(host: host)) is a standby")
                case .unreachable(let cause): causes.append("\(describe(host: host)): \(cause)")
                case .refused(let cause):
                    throw SQLError.failed("PostgreSQL at \(describe(host: host)) refused the connection: \(cause)")
                }
            }
            guard clock.now < deadline else {
                throw SQLError.failed(
                    "no PostgreSQL host accepts writes after \(Self.seconds(patience)) s: \(causes.joined(separator: "; "))")
            }
            if !warned {
                logger.warning(
                    "no PostgreSQL host accepts writes yet (\(causes.joined(separator: "; "))); trying again for up to \(Self.seconds(patience)) s"
                )
                warned = true
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Asks `hosts[host]`, over a connection of its own, whether it accepts writes.
    func probe(host: Int, timeout: Duration, logger: Logger) async -> Role {
        var config = connectionConfiguration(host: host)
        let t = timeout.components
        config.options.connectTimeout = .nanoseconds(max(100_000_000, t.seconds * 1_000_000_000 + t.attoseconds / 1_000_000_000))
        do {
            let connection = try await PostgresConnection.connect(configuration: config, id: 0, logger: logger)
            let answer: Result<Bool, any Error>
            do {
                let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: logger).collect()
                answer = .success(try rows.first?.decode(Bool.self) ?? true)
            } catch {
                answer = .failure(error)
            }
            try? await connection.close()
            return try answer.get() ? .standby : .primary
        } catch {
            if let state = (error as? PSQLError)?.serverInfo?[.sqlState], !Self.transient(sqlState: state) {
                return .refused(Self.describe(error))
            }
            return .unreachable(Self.describe(error))
        }
    }

    /// `host:port` of `hosts[host]`.
    func describe(host: Int) -> String { "\(hosts[host].host):\(hosts[host].port)" }

    /// Every host, as `a:1, b:2`.
    var hostList: String { hosts.indices.map(describe(host:)).joined(separator: ", ") }
}
