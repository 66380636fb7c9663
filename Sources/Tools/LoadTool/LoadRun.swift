// The pieces every wallet-load measurement shares: the durable one-row insert ceiling, the
// unmeasured setup of one-hop chains, and the measured redemptions over HTTP (one keep-alive
// connection per client, clients spread round-robin over one or more server ports).
import Foundation
import IssuerCore
import IssuerHTTP
import OfflineNotes
import SQLStore
import Synchronization

/// What the clients of one measured run redeem: per client, its payee account, access token
/// and chains (encoded, each a one-hop chain to that payee).
struct LoadWork: Sendable {
    struct Client: Sendable {
        let account: Int64
        let token: String
        var chains: [[UInt8]]
    }
    var clients: [Client]
    var total: Int { clients.reduce(0) { $0 + $1.chains.count } }
    /// The value each account should be credited: 100 per chain.
    var expectedCredit: [Int64: Int64] {
        clients.reduce(into: [:]) { $0[$1.account, default: 0] += Int64($1.chains.count) * LoadSetup.noteAmount }
    }
}

/// Latency figures of one run, in milliseconds.
struct Latency: Sendable, Codable {
    var p50: Double
    var p99: Double
    init(_ seconds: [Double]) {
        let sorted = seconds.sorted()
        p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2] * 1_000
        p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 99 / 100)] * 1_000
    }
}

/// One measured run: durable redemptions/s over HTTP, latencies, and answers that were not
/// `200 credited` (each one fails the run).
struct RunFigures: Sendable {
    var redemptions: Int
    var seconds: Double
    var latency: Latency
    var failures: Int
    /// Per server port (several processes): redemptions, redemptions/s over the whole run, latency.
    var perServer: [(redemptions: Int, rate: Double, latency: Latency)]
    /// CPU the measured run used: this process, the server processes, PostgreSQL.
    var cpu: CPUTime? = nil
    var rate: Double { Double(redemptions) / seconds }
}

/// The durable one-row insert ceiling of one measurement, and the CPU it used.
struct Ceiling: Sendable {
    var rate: Double
    var cpu: CPUTime
    var inserts: Int
}

enum LoadSetup {
    /// Every chain the load redeems carries one note of this many minor units.
    static let noteAmount: Int64 = 100

    /// Durable one-row insert transactions/s from `clients` concurrent tasks: the ceiling each
    /// redemption rate is divided by.
    static func ceiling(_ db: any SQLDatabase, clients: Int, inserts: Int) async throws -> Ceiling {
        try await db.transaction {
            try await $0.execute(
                "CREATE TABLE IF NOT EXISTS ceiling (id \(db.dialect == .sqlite ? "INTEGER" : "BIGINT") PRIMARY KEY, payload \(db.dialect == .sqlite ? "BLOB" : "BYTEA"))"
            )
        }
        let base = try await db.transaction {
            try await $0.queryOne("SELECT CAST(COALESCE(MAX(id), 0) AS BIGINT) AS m FROM ceiling")?.int("m") ?? 0
        }
        let start = ContinuousClock.now
        let cpu = CPUTime.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            let next = Shared()
            for _ in 0..<clients {
                group.addTask {
                    while true {
                        let i = next.counter.add(1, ordering: .relaxed).oldValue
                        if i >= inserts { return }
                        try await db.transaction {
                            try await $0.execute(
                                "INSERT INTO ceiling(id, payload) VALUES (?, ?)", base + 1 + Int64(i),
                                [UInt8](repeating: 7, count: 64))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return Ceiling(rate: Double(inserts) / (ContinuousClock.now - start).seconds, cpu: CPUTime.now() - cpu, inserts: inserts)
    }

    static func register(_ issuer: Issuer, _ account: Int64, _ key: SoftwareSigner) async throws {
        let challenge = issuer.keyChallenge(account: account)
        let message = KeyRegistration.message(challenge: challenge, account: account)
        try await issuer.registerWalletKey(
            account: account, key: key.publicKey, challenge: challenge, signature: try key.sign(message))
    }

    /// Unmeasured setup, through the issuer itself: `clients` payee accounts with a registered
    /// key each, and `redemptions` notes bought by a few payers and each signed over to a payee
    /// (round-robin). `tag` keeps the accounts of several setups on one database apart.
    static func makeWork(
        _ issuer: Issuer, tokens: AccessTokens, redemptions: Int, clients: Int, tag: String,
        log: @escaping @Sendable (String) -> Void
    ) async throws -> LoadWork {
        var payees: [(account: Int64, key: SoftwareSigner)] = []
        for i in 0..<clients {
            let id = try await issuer.register(email: "payee\(i)-\(tag)@load.test", password: "load test password")
            let key = SoftwareSigner()
            try await register(issuer, id, key)
            payees.append((id, key))
        }
        let now = UInt64(Date().timeIntervalSince1970)
        let builders = max(1, min(8, redemptions))
        let payeesNow = payees
        let made = Shared()
        let built = try await withThrowingTaskGroup(of: [(Int, [UInt8])].self) { group in
            for b in 0..<builders {
                group.addTask {
                    let mine = Array(stride(from: b, to: redemptions, by: builders))
                    let payer = try await issuer.register(email: "payer\(b)-\(tag)@load.test", password: "load test password")
                    let payerKey = SoftwareSigner()
                    try await register(issuer, payer, payerKey)
                    _ = try await issuer.fund(account: payer, amount: UInt64(mine.count) * UInt64(noteAmount) + 1)
                    var out: [(Int, [UInt8])] = []
                    for i in mine {
                        let note = try await issuer.purchase(
                            account: payer, walletKey: payerKey.publicKey, amount: UInt64(noteAmount),
                            idempotencyKey: "load-purchase-\(tag)-\(i)")[0]
                        let payee = payeesNow[i % clients]
                        let t = try Transfer.sign(
                            input: note.heldRef,
                            outputs: [TransferOutput(owner: payee.key.publicKey, amount: UInt64(noteAmount))],
                            nonce: Nonce(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) }), createdAt: now,
                            signer: payerKey)
                        out.append((i, note.appending(t, holding: 0).encoded))
                        let n = made.counter.add(1, ordering: .relaxed).newValue
                        if n % 2_000 == 0 { log("  \(n)/\(redemptions) chains") }
                    }
                    return out
                }
            }
            var all: [(Int, [UInt8])] = []
            for try await part in group { all += part }
            return all.sorted { $0.0 < $1.0 }
        }
        var clientsOut = payees.map {
            LoadWork.Client(account: $0.account, token: tokens.issue(account: $0.account, role: "user"), chains: [])
        }
        for (i, chain) in built { clientsOut[i % clients].chains.append(chain) }
        return LoadWork(clients: clientsOut)
    }

    /// The redeem request body for one chain.
    static func body(_ chain: [UInt8]) -> [UInt8] {
        Array(#"{"chains":[""#.utf8) + Array(Base64URL.encode(chain).utf8) + Array(#""]}"#.utf8)
    }

    /// Measured: every client redeems its chains one request at a time over its own keep-alive
    /// connection to `ports[client % ports.count]`. An answer other than 200 `credited` counts
    /// as a failure.
    /// `servers`: the pids of the server processes, whose CPU the figures include.
    static func measure(_ work: LoadWork, ports: [Int], servers: [Int32] = []) async throws -> RunFigures {
        let perPort = Locked<[[Double]]>(Array(repeating: [], count: ports.count))
        let failures = Shared()
        let cpu = CPUTime.now(children: servers)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (c, client) in work.clients.enumerated() {
                let server = c % ports.count
                group.addTask {
                    try await NIOHTTPClient.withConnection(host: "127.0.0.1", port: ports[server]) { http in
                        var mine: [Double] = []
                        for chain in client.chains {
                            let t0 = ContinuousClock.now
                            let (status, reply) = try await http.post("/v1/notes/redeem", json: body(chain), token: client.token)
                            mine.append((ContinuousClock.now - t0).seconds)
                            if status != 200 || !String(decoding: reply, as: UTF8.self).contains(#""credited""#) {
                                failures.counter.add(1, ordering: .relaxed)
                            }
                        }
                        perPort.state.withLock { $0[server] += mine }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (ContinuousClock.now - start).seconds
        let latencies = perPort.state.withLock { $0 }
        return RunFigures(
            redemptions: work.total, seconds: seconds, latency: Latency(latencies.flatMap { $0 }),
            failures: failures.counter.load(ordering: .relaxed),
            perServer: latencies.map { ($0.count, Double($0.count) / seconds, Latency($0)) },
            cpu: CPUTime.now(children: servers) - cpu)
    }
}

/// A value several client tasks update.
final class Locked<Value: Sendable>: Sendable {
    let state: Mutex<Value>
    init(_ value: Value) { state = Mutex(value) }
}
