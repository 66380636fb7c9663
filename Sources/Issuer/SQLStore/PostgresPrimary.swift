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
    ///
    /// The store never goes back in time: a promotion starts a new WAL timeline, and a host
    /// that accepts writes on a timeline below the highest one seen is an old primary that
    /// came back (restarted without its keeper, or awake again after a network cut) while a
    /// standby had taken its place. What it would accept is thrown away when it rejoins, so it
    /// is never written to, and a host found writing on a newer timeline than the current one
    /// is moved to at once.
    final class Primary: Sendable {
        private struct Current {
            var client: PostgresClient
            var runner: Task<Void, Never>
            var host: Int
            /// The WAL timeline `host` was found writing on: the lowest a primary may have.
            var timeline: Int
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

        /// Starts with a pool to `hosts[host]`, found writing on `timeline` (0: not asked yet),
        /// which is checked like any other on first use.
        init(endpoint: Endpoint, host: Int, timeline: Int, maxConnections: Int, patience: Duration, logger: Logger) {
            self.endpoint = endpoint
            self.maxConnections = maxConnections
            self.patience = patience
            self.logger = logger
            let client = PostgresClient(
                configuration: endpoint.clientConfiguration(host: host, maxConnections: maxConnections), backgroundLogger: logger)
            current = Mutex(
                Current(client: client, runner: PostgresStore.start(client), host: host, timeline: timeline, generation: 0))
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
                // Every host at once: the current one too (a cut connection is not a failover),
                // and the one on the newest timeline wins.
                let left = deadline - clock.now
                let roles = await endpoint.probeAll(timeout: min(max(left, .milliseconds(100)), .seconds(2)), logger: logger)
                switch endpoint.choose(roles, floor: current.withLock { $0.timeline }) {
                case .primary(let host, let timeline):
                    adopt(host, timeline: timeline)
                    return
                case .none(let why):
                    causes = why
                }
                guard clock.now < deadline, !Task.isCancelled else { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
            current.withLock { $0.search = nil }
            throw SQLError.failed(
                "no PostgreSQL host accepts writes after \(Endpoint.seconds(patience)) s (\(causes.joined(separator: "; "))); a failover may still be under way: retry shortly"
            )
        }

        /// Makes `host`, found writing on `timeline`, the current one: a new pool when it
        /// changed, the old one shut down. `generation`, when given, is the one the caller
        /// judged: nothing changes if another has started since.
        private func adopt(_ host: Int, timeline: Int, generation: Int? = nil) {
            let old: Task<Void, Never>? = current.withLock { c in
                guard generation == nil || generation == c.generation, !c.closed else { return nil }
                if generation == nil { c.search = nil }
                guard c.host != host else {
                    c.timeline = max(c.timeline, timeline)
                    return nil
                }
                let client = PostgresClient(
                    configuration: endpoint.clientConfiguration(host: host, maxConnections: maxConnections),
                    backgroundLogger: logger)
                let old = c.runner
                c = Current(
                    client: client, runner: PostgresStore.start(client), host: host, timeline: timeline,
                    generation: c.generation + 1, search: c.search)
                if generation == nil { c.search = nil }
                return old
            }
            if let old {
                logger.warning("PostgreSQL primary is now \(endpoint.describe(host: host)), on timeline \(timeline)")
                old.cancel()
            }
        }

        private func watch() async {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.heartbeat)
                guard !Task.isCancelled else { return }
                let (host, timeline, generation, searching) = current.withLock {
                    ($0.host, $0.timeline, $0.generation, $0.search != nil)
                }
                guard !searching else { continue }
                let roles = await endpoint.probeAll(timeout: .seconds(2), logger: logger)
                switch endpoint.choose(roles, floor: timeline) {
                case .primary(let chosen, let newest) where chosen == host:
                    current.withLock { c in
                        if c.generation == generation { c.timeline = max(c.timeline, newest) }
                    }
                case .primary(let chosen, let newest):
                    // Another host writes on a newer timeline: a standby was promoted while
                    // this one still accepts writes (it is cut off, or its demotion is late).
                    logger.warning(
                        "PostgreSQL at \(endpoint.describe(host: chosen)) accepts writes on timeline \(newest), newer than \(endpoint.describe(host: host))'s; moving to it"
                    )
                    adopt(chosen, timeline: newest, generation: generation)
                case .none:
                    try? await recover(from: generation)
                }
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
    enum Role: Equatable {
        /// Accepts writes, on this WAL timeline (a promotion starts a new, higher one).
        case primary(timeline: Int)
        case standby
        /// No answer, or a refusal worth waiting out (starting up, shutting down, full).
        case unreachable(String)
        /// A refusal that waiting cannot fix (bad password, unknown database or user).
        case refused(String)
    }

    /// Which host to write to, from what each host answered.
    enum Choice: Equatable {
        case primary(host: Int, timeline: Int)
        /// None: what each host answered, in words.
        case none([String])
    }

    /// The host to write to: the one that accepts writes on the highest timeline, never below
    /// `floor` (the highest the caller has written on). A host that accepts writes on a lower
    /// timeline is an old primary that came back after a standby was promoted in its place;
    /// what it accepts is discarded when it rejoins. Two hosts accepting writes on the same
    /// highest timeline are not a primary and its standbys: neither is chosen.
    func choose(_ roles: [Role], floor: Int) -> Choice {
        var causes: [String] = []
        var best: (host: Int, timeline: Int)?
        var tied: Int?
        for (host, role) in roles.enumerated() {
            switch role {
            case .primary(let timeline):
                if let b = best, timeline == b.timeline {
                    tied = host
                } else if best.map({ timeline > $0.timeline }) ?? true {
                    best = (host, timeline)
                    tied = nil
                }
            case .standby: causes.append("\(describe(host: host)) is a standby")
            case .unreachable(let cause), .refused(let cause): causes.append("\(describe(host: host)): \(cause)")
            }
        }
        for (host, role) in roles.enumerated() {
            guard case .primary(let timeline) = role else { continue }
            let newest = max(best?.timeline ?? 0, floor)
            if timeline < newest {
                causes.append(
                    "\(describe(host: host)) accepts writes on timeline \(timeline), behind timeline \(newest): an old primary, not used"
                )
            }
        }
        guard let best, best.timeline >= floor else { return .none(causes) }
        if let tied {
            causes.append(
                "\(describe(host: best.host)) and \(describe(host: tied)) both accept writes on timeline \(best.timeline): neither is used until one is a standby"
            )
            return .none(causes)
        }
        return .primary(host: best.host, timeline: best.timeline)
    }

    /// Waits, for at most `patience`, until one of the hosts accepts writes (the choice of
    /// `choose`); returns it and its timeline. Fails at once on a refusal that waiting cannot
    /// fix, and after `patience` otherwise, with what each host answered last.
    func waitForPrimary(patience: Duration, logger: Logger) async throws -> (host: Int, timeline: Int) {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var warned = false
        while true {
            let left = deadline - clock.now
            let roles = await probeAll(timeout: min(max(left, .milliseconds(100)), .seconds(5)), logger: logger)
            for (host, role) in roles.enumerated() {
                if case .refused(let cause) = role {
                    throw SQLError.failed("PostgreSQL at \(describe(host: host)) refused the connection: \(cause)")
                }
            }
            let causes: [String]
            switch choose(roles, floor: 0) {
            case .primary(let host, let timeline): return (host, timeline)
            case .none(let why): causes = why
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

    /// Asks every host at once; each answer comes within `timeout`.
    func probeAll(timeout: Duration, logger: Logger) async -> [Role] {
        await withTaskGroup(of: (Int, Role).self) { group in
            for host in hosts.indices {
                group.addTask { (host, await probe(host: host, timeout: timeout, logger: logger)) }
            }
            var roles = [Role](repeating: .unreachable("not asked"), count: hosts.count)
            for await (host, role) in group { roles[host] = role }
            return roles
        }
    }

    /// Asks `hosts[host]`, over a connection of its own, whether it accepts writes and on which
    /// timeline. Answers within `timeout` even when the host accepted the connection and then
    /// went silent (a frozen or cut-off server): the question is then left to fail on its own.
    func probe(host: Int, timeout: Duration, logger: Logger) async -> Role {
        let first = FirstAnswer<Role>()
        let role = await withCheckedContinuation { (continuation: CheckedContinuation<Role, Never>) in
            first.start(continuation) {
                [
                    Task { first.settle(await ask(host: host, timeout: timeout, logger: logger)) },
                    Task {
                        try? await Task.sleep(for: timeout)
                        first.settle(.unreachable("no answer within \(Self.seconds(timeout)) s"))
                    },
                ]
            }
        }
        first.cancelTheOthers()
        return role
    }

    private func ask(host: Int, timeout: Duration, logger: Logger) async -> Role {
        var config = connectionConfiguration(host: host)
        let t = timeout.components
        config.options.connectTimeout = .nanoseconds(max(100_000_000, t.seconds * 1_000_000_000 + t.attoseconds / 1_000_000_000))
        do {
            let connection = try await PostgresConnection.connect(configuration: config, id: 0, logger: logger)
            let answer: Result<Role, any Error>
            do {
                // The timeline from the name of the WAL file being written: its first 8 hex
                // digits. (pg_control_checkpoint() lags behind a promotion until the next
                // checkpoint.)
                let rows = try await connection.query(
                    """
                    SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN 0
                        ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END
                    """, logger: logger
                ).collect()
                guard let row = rows.first else { throw SQLError.failed("no answer to pg_is_in_recovery()") }
                let (recovering, timeline) = try row.decode((Bool, Int32).self)
                answer = .success(recovering ? .standby : .primary(timeline: Int(timeline)))
            } catch {
                answer = .failure(error)
            }
            try? await connection.close()
            return try answer.get()
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

/// The first of several racing tasks to answer resumes the waiter; the others are cancelled
/// and their answers dropped.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<Value, Never>?, racers: [Task<Void, Never>])>((nil, []))

    /// Keeps `waiter`, then starts the racers (which may answer at once).
    func start(_ waiter: CheckedContinuation<Value, Never>, racers: () -> [Task<Void, Never>]) {
        state.withLock { $0.waiter = waiter }
        let started = racers()
        state.withLock { $0.racers = started }
    }

    func settle(_ value: Value) {
        state.withLock { s in
            defer { s.waiter = nil }
            return s.waiter
        }?.resume(returning: value)
    }

    func cancelTheOthers() {
        for racer in state.withLock({ $0.racers }) { racer.cancel() }
    }
}
