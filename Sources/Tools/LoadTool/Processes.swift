// Several wallet-server processes on one PostgreSQL (docs/server.md,
// "Several processes on one database"): real release executables sharing one --keys
// directory, the load's clients spread over them round-robin, then the exactly-once checks.
import Foundation
import IssuerCore
import IssuerHTTP
import OfflineNotes
import SQLStore
import Synchronization

/// One several-process run's figures and checks.
struct ProcessesRun: Sendable {
    let processes: Int
    let figures: RunFigures
    /// Check name → problem (nil: it holds).
    let checks: [(name: String, problem: String?)]
    var ok: Bool { checks.allSatisfy { $0.problem == nil } }
}

struct SeveralProcesses {
    let postgresURL: String
    let serverBinary: String
    let clients: Int
    let redemptions: Int
    /// Chains each sent to two processes at once (both answer 200; one credits, one answers
    /// `already_credited`).
    let duplicates: Int
    let log: @Sendable (String) -> Void

    func run(processes: Int) async throws -> ProcessesRun {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wallet-load-processes-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // Kept when the run fails: the servers' logs are there.
        var finished = false
        defer { if finished { try? FileManager.default.removeItem(at: work) } }

        // The keys every process loads (KeyDirectory's layout), written here so that this
        // process can buy the notes and issue the access tokens the servers accept.
        let keys = work.appendingPathComponent("keys")
        try FileManager.default.createDirectory(
            at: keys, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let now = UInt64(Date().timeIntervalSince1970) - 60
        let (authority, issuing) = (SoftwareSigner(), SoftwareSigner())
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
        for (name, bytes) in [
            ("authority.key", Array(authority.privateKey.rawRepresentation)), ("secret.key", secret),
            ("issuing-\(now).key", Array(issuing.privateKey.rawRepresentation)),
        ] {
            guard
                FileManager.default.createFile(
                    atPath: keys.appendingPathComponent(name).path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
            else {
                throw SoakFailure("cannot write \(name) in \(keys.path)")
            }
        }
        let keyring = IssuerKeyring(
            authority: authority, issuing: [.init(signer: issuing, validFrom: now, validUntil: now + 365 * 86_400)])
        let tokens = AccessTokens(secret: secret, lifetime: 6 * 3_600)

        // A schema of its own; this process's issuer makes it and does the unmeasured setup.
        let (store, url) = try await LoadDatabase.open(
            "postgres", label: "processes\(processes)", postgresURL: postgresURL, maxConnections: 8)
        defer { Task { await store.close() } }
        guard let eur = Currency("EUR") else { throw SoakFailure("currency") }
        var config = IssuerConfig(
            currency: eur, maxOfflineHolding: UInt64(Int64.max / 4), devFunding: true, passwordCost: .testing)
        config.maxHops = 8
        let issuer = try await Issuer.open(database: store, keyring: keyring, config: config, challengeSecret: secret)

        var servers: [ServerChild] = []
        defer { for server in servers { server.kill() } }
        for p in 0..<processes {
            let dir = work.appendingPathComponent("server\(p)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let server = ServerChild(
                binary: serverBinary,
                arguments: [
                    "--postgres", url, "--keys", keys.path, "--log-level", "error", "--max-offline-holding", "1000000000000",
                    "--auth-per-minute-per-ip", "1000000", "--writes-per-minute-per-ip", "1000000000",
                    "--writes-per-minute-per-account", "1000000000",
                    // Every load client connects from this host: the per-address cap is not what is measured.
                    "--max-connections-per-client", "100000",
                ], work: dir)
            try await server.start()
            servers.append(server)
        }
        let ports = servers.map(\.port)
        log(
            "  \(processes) wallet-server process(es) on ports \(ports.map(String.init).joined(separator: ", ")); setup: \(redemptions) chains…"
        )
        let load = try await LoadSetup.makeWork(
            issuer, tokens: tokens, redemptions: redemptions, clients: clients, tag: "p\(processes)", log: log)
        let doubled = try await LoadSetup.makeWork(
            issuer, tokens: tokens, redemptions: duplicates, clients: min(clients, duplicates), tag: "p\(processes)-dup", log: log
        )

        let figures = try await LoadSetup.measure(load, ports: ports, servers: servers.compactMap(\.pid))
        // The deliberate duplicates: each chain to process i and i+1 at the same moment.
        let answers = Locked<[String: Int]>([:])
        try await withThrowingTaskGroup(of: Void.self) { group in
            var n = 0
            for client in doubled.clients {
                for chain in client.chains {
                    for copy in 0..<2 {
                        let port = ports[(n + copy) % ports.count]
                        group.addTask {
                            let (status, reply) = try await NIOHTTPClient.withConnection(host: "127.0.0.1", port: port) {
                                try await $0.post("/v1/notes/redeem", json: LoadSetup.body(chain), token: client.token)
                            }
                            let text = String(decoding: reply, as: UTF8.self)
                            let outcome =
                                status != 200
                                ? "HTTP \(status)"
                                : text.contains(#""already_credited""#)
                                    ? "already_credited" : text.contains(#""credited""#) ? "credited" : text
                            answers.state.withLock { $0[outcome, default: 0] += 1 }
                        }
                    }
                    n += 1
                }
            }
            try await group.waitForAll()
        }
        for server in servers { try server.stop() }
        servers = []

        // Exactly once, read from the database with every server stopped.
        var expected = load.expectedCredit
        expected.merge(doubled.expectedCredit) { $0 + $1 }
        let chains = load.total + doubled.total
        let (balances, badEntries, redeemEntries, markers) = try await store.transaction { conn in
            var balances: [Int64: Int64] = [:]
            for row in try await conn.query(
                "SELECT id, balance FROM account WHERE id IN (\(Array(repeating: "?", count: expected.count).joined(separator: ", ")))",
                Array(expected.keys))
            {
                balances[try row.int("id")] = try row.int("balance")
            }
            let bad =
                try await conn.queryOne(
                    "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM (SELECT reference FROM journal WHERE kind = 'redeem' GROUP BY reference HAVING COUNT(*) <> 2) AS d"
                )?.int("n") ?? -1
            let entries =
                try await conn.queryOne("SELECT CAST(COUNT(DISTINCT entry) AS BIGINT) AS n FROM journal WHERE kind = 'redeem'")?
                .int("n") ?? -1
            let markers =
                try await conn.queryOne("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM spent_state WHERE kind = 'redeem'")?.int("n")
                ?? -1
            return (balances, bad, entries, markers)
        }
        let wrong = expected.filter { balances[$0.key] != $0.value }
        let ledger = try await issuer.checkLedger()
        let seen = answers.state.withLock { $0 }
        let checks: [(String, String?)] = [
            (
                "every request answered 200 credited",
                figures.failures == 0 ? nil : "\(figures.failures) of \(figures.redemptions) were not"
            ),
            (
                "each account credited exactly what it redeemed",
                wrong.isEmpty
                    ? nil
                    : "\(wrong.count) accounts differ, e.g. \(wrong.first.map { "account \($0.key): expected \($0.value), has \(balances[$0.key] ?? 0)" } ?? "")"
            ),
            (
                "no chain credited twice (one redemption entry of two postings each)",
                badEntries == 0 && redeemEntries == chains && markers == chains
                    ? nil
                    : "\(badEntries) references with other than two postings; \(redeemEntries) redemption entries and \(markers) markers for \(chains) chains"
            ),
            (
                "each duplicate credited once, answered already_credited once",
                seen == ["credited": doubled.total, "already_credited": doubled.total] ? nil : "answers \(seen)"
            ),
            ("books balance (Issuer.checkLedger)", ledger.isEmpty ? nil : ledger.prefix(3).joined(separator: "; ")),
        ]
        try? await store.transaction { conn in
            if let schema = url.split(separator: "search_path=").last?.split(separator: "&").first {
                try await conn.execute("DROP SCHEMA \(schema) CASCADE")
            }
        }
        finished = true
        return ProcessesRun(processes: processes, figures: figures, checks: checks.map { (name: $0.0, problem: $0.1) })
    }
}
