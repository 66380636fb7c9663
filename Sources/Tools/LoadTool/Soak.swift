// wallet-load --soak SECONDS: mixed traffic against a wallet-server child process while the
// database connections are cut (PostgreSQL) and the server is SIGKILLed and restarted on the
// same data (docs/reliability.md §5). Clients retry what a retry should fix
// (no connection, 5xx) with the same request — the same Idempotency-Key, the same chains — and
// afterwards the books must balance, every acknowledged redemption must be recorded, and every
// 5xx must have come during a fault and been fixed by its retry.
import Foundation
import IssuerCore
import NIOCore
import NIOHTTP1
import OfflineNotes
import SQLStore
import Synchronization
import TestSupport

/// A refusal that a retry cannot fix, or a check that failed: the soak fails with it.
struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the soak counts; shared by the client tasks and the fault injector.
final class SoakLedger: Sendable {
    struct FiveXX: Sendable {
        let route: String
        let status: Int
        let code: String
        let at: ContinuousClock.Instant
    }
    struct Fault: Sendable {
        let kind: String
        let start: ContinuousClock.Instant
        var end: ContinuousClock.Instant?
    }
    struct State: Sendable {
        var requests: [String: Int] = [:]
        var operations: [String: Int] = [:]
        var retries = 0
        var connectionErrors: [String: Int] = [:]
        var fiveXX: [FiveXX] = []
        var faults: [Fault] = []
        var terminatedConnections = 0
        /// Held states of chains the server acknowledged as redeemed (2xx), with their amounts.
        var acknowledged: [StateRef: UInt64] = [:]
        /// Chains acknowledged as redeemed, by the account that redeemed them (to redeem again).
        var redeemed: [Int64: [[UInt8]]] = [:]
        /// When each redemption's acknowledgement arrived, in order.
        var redemptionAcknowledged: [ContinuousClock.Instant] = []
        var fraudReports = 0
    }
    let state = Mutex(State())

    func count(request route: String) { state.withLock { $0.requests[route, default: 0] += 1 } }
    func count(operation: String) { state.withLock { $0.operations[operation, default: 0] += 1 } }
    func beginFault(_ kind: String) -> Int {
        state.withLock {
            $0.faults.append(.init(kind: kind, start: .now))
            return $0.faults.count - 1
        }
    }
    func endFault(_ index: Int) { state.withLock { $0.faults[index].end = .now } }

    /// The fault a 5xx at `t` is explained by: one that began before it and ended at most
    /// `grace` earlier (pooled connections a cut killed fail on their next use, after the cut).
    static func cause(of t: ContinuousClock.Instant, in faults: [Fault], grace: Duration) -> String? {
        faults.last { $0.start <= t && t <= ($0.end ?? .now) + grace }?.kind
    }
}

/// One account the soak drives: its token and wallet key.
struct SoakAccount: Sendable {
    let id: Int64
    let token: String
    let key: SoftwareSigner
}

struct Soak {
    let seconds: Int
    let database: String
    let postgresURL: String?
    let clients: Int
    let serverBinary: String
    let json: Bool
    /// With a replicated PostgreSQL: the faults are this command, run `rounds` times, which
    /// loses the primary (scripts/with-pg-ha's lose-primary: a SIGKILL or a cut-off, in turn)
    /// and returns once it is replaced.
    var losePrimary: String? = nil
    var rounds = 0
    /// How long after a fault ends its 5xx answers still count as caused by it.
    let grace: Duration = .seconds(5)
    /// How long a client keeps retrying one request before the soak fails.
    let retryDeadline: Duration = .seconds(120)
    /// How long one attempt may wait for its answer (a loaded debug server answers in well
    /// under a second; a restart refuses connections rather than holding them).
    let answerDeadline: Duration = .seconds(60)

    struct AnswerTimeout: Error {}

    /// A continuation resumed by whichever comes first.
    final class ResumeOnce<T: Sendable>: Sendable {
        let slot = Mutex<CheckedContinuation<T, any Error>?>(nil)
    }

    /// `work`'s result, or AnswerTimeout after `limit`; a task that ignores cancellation (a
    /// request the server holds) is left behind rather than waited for.
    static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.slot.withLock { $0 = continuation }
            let worker = Task {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                once.slot.withLock { $0.take() }?.resume(with: result)
            }
            Task {
                try? await Task.sleep(for: limit)
                if let c = once.slot.withLock({ $0.take() }) {
                    worker.cancel()
                    c.resume(throwing: AnswerTimeout())
                }
            }
        }
    }

    let ledger = SoakLedger()
    static let serverApplicationName = "wallet-soak-server"

    func log(_ s: String) { if !json { FileHandle.standardError.write(Data((s + "\n").utf8)) } }

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("wallet-soak-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var storage: [String]
        var serverURL: String?
        var sideURL: String?
        switch database {
        case "sqlite":
            storage = ["--database", work.appendingPathComponent("server.sqlite").path]
        case "postgres":
            guard let url = postgresURL ?? ProcessInfo.processInfo.environment["OW_LOAD_POSTGRES_URL"] else {
                throw SoakFailure("--postgres-url is required with --database postgres")
            }
            let schema = "soak_\(UInt32.random(in: 0...UInt32.max))"
            let admin = try PostgresStore(url: url, maxConnections: 1)
            try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
            await admin.close()
            // Named, so the cut terminates the server's connections and nobody else's.
            serverURL =
                url + (url.contains("?") ? "&" : "?") + "search_path=\(schema)&application_name=\(Self.serverApplicationName)"
            sideURL = url
            storage = ["--postgres", serverURL ?? url]
        default:
            throw SoakFailure("--database is sqlite or postgres")
        }
        let server = ServerChild(
            binary: serverBinary,
            arguments: storage + [
                "--keys", work.appendingPathComponent("keys").path, "--dev-funding", "--log-level", "error",
                "--max-offline-holding", "1000000000000",
                "--auth-per-minute-per-ip", "1000000", "--writes-per-minute-per-ip", "1000000", "--writes-per-minute-per-account",
                "1000000",
                "--max-connections-per-client", "100000",
            ], work: work)
        try await server.start()
        // However the soak ends, the server child does not outlive it.
        defer { server.kill() }
        let port = server.port
        log("soak: wallet-server (\(database)) on port \(port), \(clients) clients, \(seconds) s; data in \(work.path)")

        // Setup: one account and registered wallet key per client, each funded.
        var accounts: [SoakAccount] = []
        for i in 0..<clients {
            accounts.append(try await newAccount("soak\(i)", port: port, fund: 100_000_000))
        }

        // The side connection that cuts the server's PostgreSQL connections.
        let side: PostgresStore? = losePrimary != nil ? nil : try sideURL.map { try PostgresStore(url: $0, maxConnections: 1) }
        let started = ContinuousClock.now
        // When the clients stop: at the planned end, and not before the faults are done. A lost
        // primary's round lasts as long as its node takes to come back, so in that mode the
        // load runs on until `afterLastRound` past the last one.
        let end = Deadline(started + .seconds(seconds))
        let accountsNow = accounts
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<clients {
                group.addTask {
                    var rng = SystemRandomNumberGenerator()
                    var sequence = 0
                    while end.running {
                        sequence += 1
                        let me = accountsNow[i]
                        let payee = accountsNow[(i + 1) % accountsNow.count]
                        let roll = Int.random(in: 0..<100, using: &rng)
                        if roll < 55 {
                            try await payment(from: me, to: payee, tag: "\(i)-\(sequence)", port: port)
                        } else if roll < 90 {
                            try await refresh(me, tag: "\(i)-\(sequence)", port: port)
                        } else {
                            try await fraud(
                                reporter: me, payees: (accountsNow[(i + 2) % accountsNow.count], payee), tag: "\(i)-\(sequence)",
                                port: port)
                        }
                    }
                }
            }
            // Faults: evenly spread over the run, alternating a connection cut (PostgreSQL)
            // with a SIGKILL and restart; SQLite has no connection to cut (docs/reliability.md §5).
            group.addTask {
                let planned = losePrimary != nil ? max(1, rounds) : max(2, seconds / 8)
                var previousEnd = started
                // The clients stop once the faults are done, however long they took: with lost
                // primaries, `afterLastRound` after the last one.
                defer { end.faultsEnded(extendingTo: losePrimary != nil ? previousEnd + Self.afterLastRound : started) }
                for n in 1...planned {
                    // Evenly spread, and never sooner than `afterLastRound` after the previous
                    // round: each round has load before it and after it.
                    let due = started + .seconds(Double(seconds) * Double(n) / Double(planned + 1))
                    try await Task.sleep(until: max(due, previousEnd + Self.afterLastRound), clock: .continuous)
                    if let losePrimary {
                        let fault = ledger.beginFault("primary lost")
                        let said = try await Self.runCommand(losePrimary, in: work)
                        ledger.endFault(fault)
                        previousEnd = .now
                        log("  \(Int((ContinuousClock.now - started).seconds)) s: primary lost (\(said))")
                    } else if let side, n % 2 == 1 {
                        let fault = ledger.beginFault("connection cut")
                        let rows = try await side.transaction { conn in
                            try await conn.query(
                                "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = ?",
                                Self.serverApplicationName)
                        }
                        ledger.state.withLock { $0.terminatedConnections += rows.count }
                        ledger.endFault(fault)
                        log("  \(Int((ContinuousClock.now - started).seconds)) s: cut \(rows.count) database connections")
                    } else {
                        let fault = ledger.beginFault("SIGKILL and restart")
                        server.kill()
                        try await server.start()
                        ledger.endFault(fault)
                        log("  \(Int((ContinuousClock.now - started).seconds)) s: server SIGKILLed and restarted")
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (ContinuousClock.now - started).seconds
        await side?.close()
        try server.stop()

        // Checks, on the database itself once the server is stopped.
        let db: any SQLDatabase
        if let serverURL {
            db = try PostgresStore(url: serverURL, maxConnections: 2)
        } else {
            db = try SQLiteStore(path: work.appendingPathComponent("server.sqlite").path)
        }
        let now = UInt64(Date().timeIntervalSince1970)
        guard let eur = Currency("EUR") else { throw SoakFailure("currency") }
        // The server's keys: the checks issue nothing, but redeeming again verifies the notes.
        let issuer = try await Issuer.open(
            database: db, keyring: try Self.keyring(in: work.appendingPathComponent("keys"), now: now),
            config: IssuerConfig(currency: eur), challengeSecret: Array(repeating: 1, count: 32))
        let ledgerProblems = try await issuer.checkLedger()
        let snapshot = ledger.state.withLock { $0 }
        var missing: [String] = []
        let refs = Array(snapshot.acknowledged.keys)
        for start in stride(from: 0, to: refs.count, by: 512) {
            let batch = Array(refs[start..<min(refs.count, start + 512)])
            let status = try await issuer.stateStatus(batch)
            for ref in batch where status[ref] != .redeemed {
                missing.append("\(Base64URL.encode(ref.bytes)): \(status[ref].map { "\($0)" } ?? "unknown")")
            }
        }
        let cases = try await issuer.fraudCases(limit: 1_000_000).count
        // Every chain acknowledged as redeemed, redeemed again by the same account: refused.
        var redeemedAgain = 0
        var creditedTwice: [String] = []
        for (account, chains) in snapshot.redeemed {
            for start in stride(from: 0, to: chains.count, by: 50) {
                let batch = Array(chains[start..<min(chains.count, start + 50)])
                for (chain, result) in zip(batch, try await issuer.redeem(account: account, chains: batch)) {
                    redeemedAgain += 1
                    if case .alreadyCredited = result { continue }
                    creditedTwice.append("\(Base64URL.encode(try Chain(decoding: chain).heldRef.bytes)): \(result)")
                }
            }
        }
        let ledgerAfter = try await issuer.checkLedger()
        await db.close()
        // Time without service per lost primary: the longest wait between two acknowledged
        // redemptions from the fault's start to the first one after its end. The clients keep
        // redeeming throughout, so that gap is the outage; nil when none came after the end.
        let outages = snapshot.faults.filter { $0.kind == "primary lost" }.map { f in
            Self.longestGap(from: f.start, through: f.end ?? .now, in: snapshot.redemptionAcknowledged)?.seconds
        }

        var byCause: [String: [String: Int]] = [:]
        var unexplained: [String] = []
        for f in snapshot.fiveXX {
            if let cause = SoakLedger.cause(of: f.at, in: snapshot.faults, grace: grace) {
                byCause[cause, default: [:]]["\(f.route) \(f.status) \(f.code)", default: 0] += 1
            } else {
                unexplained.append("\(f.route) \(f.status) \(f.code) at \(String(format: "%.1f", (f.at - started).seconds)) s")
            }
        }
        let checks: [(String, Bool, String)] = [
            ("books balance (Issuer.checkLedger)", ledgerProblems.isEmpty, ledgerProblems.prefix(5).joined(separator: "; ")),
            (
                "every acknowledged redemption is recorded", missing.isEmpty,
                "\(missing.count) of \(refs.count) not redeemed: \(missing.prefix(5).joined(separator: "; "))"
            ),
            (
                "every 5xx came during a fault (and its retry succeeded)", unexplained.isEmpty,
                unexplained.prefix(10).joined(separator: "; ")
            ),
            (
                "a fraud case for every acknowledged report", cases >= snapshot.fraudReports,
                "\(cases) cases for \(snapshot.fraudReports) reports"
            ),
            ("faults injected", !snapshot.faults.isEmpty, "none"),
            (
                "every acknowledged redemption is refused when redeemed again", creditedTwice.isEmpty && ledgerAfter.isEmpty,
                "\(creditedTwice.count) of \(redeemedAgain) credited again: \(creditedTwice.prefix(5).joined(separator: "; ")) \(ledgerAfter.prefix(3))"
            ),
            (
                "service came back after every lost primary", outages.allSatisfy { $0 != nil },
                "\(outages.filter { $0 == nil }.count) without"
            ),
        ]
        let served = outages.compactMap { $0 }.sorted()
        let p50 = served.isEmpty ? 0 : served[served.count / 2]
        let worst = served.last ?? 0
        let ok = checks.allSatisfy(\.1)
        if json {
            let out: [String: Any] = [
                "database": database, "seconds": elapsed, "clients": clients, "ok": ok,
                "operations": snapshot.operations, "requests": snapshot.requests, "retries": snapshot.retries,
                "connection_errors": snapshot.connectionErrors, "server_errors_by_cause": byCause,
                "unexplained_server_errors": unexplained,
                "faults": Dictionary(grouping: snapshot.faults, by: \.kind).mapValues(\.count),
                "terminated_connections": snapshot.terminatedConnections, "acknowledged_redemptions": refs.count,
                "acknowledged_value": snapshot.acknowledged.values.reduce(0, +), "fraud_reports": snapshot.fraudReports,
                "fraud_cases": cases,
                "redeemed_again_refused": redeemedAgain - creditedTwice.count, "redeemed_again": redeemedAgain,
                "seconds_without_service": served, "seconds_without_service_p50": p50, "seconds_without_service_max": worst,
                "checks": Dictionary(uniqueKeysWithValues: checks.map { ($0.0, $0.1) }),
            ]
            print(String(decoding: try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]), as: UTF8.self))
        } else {
            print("soak on \(database): \(String(format: "%.1f", elapsed)) s, \(clients) clients")
            print(
                "  operations: \(snapshot.operations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
            )
            print(
                "  requests: \(snapshot.requests.values.reduce(0, +)) (\(snapshot.requests.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))"
            )
            print("  retries: \(snapshot.retries); connection errors: \(snapshot.connectionErrors)")
            print(
                "  faults: \(Dictionary(grouping: snapshot.faults, by: \.kind).mapValues(\.count)); database connections terminated: \(snapshot.terminatedConnections)"
            )
            print("  5xx by cause: \(byCause.isEmpty ? "none" : "\(byCause)")")
            print(
                "  acknowledged redemptions: \(refs.count) (\(snapshot.acknowledged.values.reduce(0, +)) minor units); fraud reports \(snapshot.fraudReports), cases \(cases)"
            )
            print("  redeemed again: \(redeemedAgain), refused \(redeemedAgain - creditedTwice.count)")
            if !outages.isEmpty {
                print(
                    "  seconds without service per lost primary: \(served.map { String(format: "%.1f", $0) }.joined(separator: ", ")) (p50 \(String(format: "%.1f", p50)), max \(String(format: "%.1f", worst)))"
                )
            }
            for (name, passed, detail) in checks { print("  \(passed ? "ok" : "FAILED"): \(name)\(passed ? "" : ": \(detail)")") }
        }
        if ok { try? FileManager.default.removeItem(at: work) }
        guard ok else { throw SoakFailure("soak checks failed; server logs and data kept in \(work.path)") }
    }

    /// How long the load runs between two lost primaries, and after the last.
    static let afterLastRound: Duration = .seconds(10)

    /// The longest time between `start`, the acknowledgements after it, and the first
    /// acknowledgement after `end` (which closes the window); nil without one after `end`.
    static func longestGap(
        from start: ContinuousClock.Instant, through end: ContinuousClock.Instant, in acknowledged: [ContinuousClock.Instant]
    ) -> Duration? {
        guard let closing = acknowledged.first(where: { $0 > end }) else { return nil }
        var previous = start
        var longest = Duration.zero
        for t in acknowledged where t > start && t <= closing {
            longest = max(longest, t - previous)
            previous = t
        }
        return longest
    }

    /// The keys the server made in `directory` (wallet-server's key files: 32 raw bytes each),
    /// every issuing key valid from the epoch: enough to verify the notes it issued.
    static func keyring(in directory: URL, now: UInt64) throws -> IssuerKeyring {
        func key(_ name: String) throws -> SoftwareSigner {
            try SoftwareSigner(rawRepresentation: Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("issuing-") && $0.hasSuffix(".key")
        }
        return IssuerKeyring(
            authority: try key("authority.key"),
            issuing: try names.map { .init(signer: try key($0), validFrom: 0, validUntil: now + 400 * 86_400) })
    }

    /// Runs `command` with /bin/sh in `directory` and returns what it printed; throws when it fails.
    ///
    /// Through `ProgramRun` (posix_spawn, output to a file, waitpid), not Foundation's `Process`
    /// and a pipe: the command leaves a restarted keeper running, which must not hold anything
    /// the soak waits on.
    static func runCommand(_ command: String, in directory: URL) async throws -> String {
        try await Task.detached {
            let run = try ProgramRun.run("/bin/sh", ["-c", command], in: directory.path)
            let text = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            guard run.status == 0 else {
                throw SoakFailure("\(command) failed (status \(run.status)): \(text) \(run.stderr)")
            }
            return text
        }.value
    }

}

/// When the soak's clients stop: at a moment that only moves later, and not before the faults
/// are all done, so that every fault has load during it and after it.
final class Deadline: Sendable {
    private let value: Mutex<(instant: ContinuousClock.Instant, faultsDone: Bool)>
    init(_ instant: ContinuousClock.Instant) { value = Mutex((instant, false)) }

    /// Whether the clients go on.
    var running: Bool { value.withLock { !$0.faultsDone || ContinuousClock.now < $0.instant } }

    /// The faults are done; the clients stop at `instant` if that is later than planned.
    func faultsEnded(extendingTo instant: ContinuousClock.Instant) {
        value.withLock {
            $0.faultsDone = true
            $0.instant = max($0.instant, instant)
        }
    }
}
