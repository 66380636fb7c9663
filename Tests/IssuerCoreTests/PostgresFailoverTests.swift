import Foundation
import IssuerTesting
import OfflineNotes
import TestSupport
import Testing
import WalletCore

@testable import IssuerCore
@testable import SQLStore

#if canImport(Glibc)
import Glibc
#endif

/// Where the issuer's PostgreSQL URL names several hosts, as libpq does, it is read as such; a
/// URL with one host is read as before.
@Suite struct PostgresHostListTests {
    typealias Endpoint = PostgresStore.Endpoint

    static func hosts(_ e: Endpoint) -> [String] { e.hosts.map { "\($0.host):\($0.port)" } }

    @Test func oneHostIsReadAsBefore() throws {
        let e = try Endpoint(url: "postgres://u:pw@db.example:6432/wallet?search_path=s&application_name=a")
        #expect(Self.hosts(e) == ["db.example:6432"])
        #expect(e.user == "u" && e.password == "pw" && e.database == "wallet" && e.schema == "s" && e.applicationName == "a")
        #expect(Self.hosts(try Endpoint(url: "postgresql://u@db.example/wallet")) == ["db.example:5432"])
    }

    @Test func aURLListsSeveralHosts() throws {
        let e = try Endpoint(url: "postgres://u:pw@10.0.0.1:5433,db2,[::1]:5434/wallet?search_path=s")
        #expect(Self.hosts(e) == ["10.0.0.1:5433", "db2:5432", "::1:5434"])
        #expect(e.user == "u" && e.password == "pw" && e.database == "wallet" && e.schema == "s")
    }

    @Test func keywordsListSeveralHosts() throws {
        let e = try Endpoint(url: "host=a,b port=5433,5434 user=u password='p w\\'x' dbname=wallet search_path=s")
        #expect(Self.hosts(e) == ["a:5433", "b:5434"])
        #expect(e.user == "u" && e.password == "p w'x" && e.database == "wallet" && e.schema == "s")
        #expect(Self.hosts(try Endpoint(url: "host=a,b port=6000 user=u")) == ["a:6000", "b:6000"])
    }

    @Test func badListsAreRefusedSayingWhatIsWrong() {
        let cases: [(String, String)] = [
            ("host=a,b,c port=1,2 user=u", "3 hosts but 2 ports"),
            ("host=a user=u sslmode=require", "unknown key sslmode"),
            ("host=a port=x user=u", "port x is not a number"),
            ("host=a user=u password='open", "unclosed quote"),
            ("port=5432 user=u", "needs host= and user="),
            ("postgres://u@a:1,:2/db", "an empty host"),
            ("postgres://u@a:1,b:99999/db", "port 99999 of host b"),
        ]
        for (url, expected) in cases {
            #expect {
                try Endpoint(url: url)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
    }

    @Test func passwordsAreHiddenInBothForms() {
        #expect(Endpoint.redacted("postgres://u:secret@a:1,b:2/db") == "postgres://u:***@a:1,b:2/db")
        #expect(Endpoint.redacted("host=a user=u password='se cret' dbname=d") == "host=a user=u password=*** dbname=d")
        #expect(!Endpoint.redacted("host=a user=u password=secret").contains("secret"))
    }
}

/// Which host the store writes to, among what the hosts answered: the newest timeline, never
/// an old primary that came back, never one of two that both claim the newest.
@Suite struct PostgresPrimaryChoiceTests {
    typealias Endpoint = PostgresStore.Endpoint
    static let three = try! Endpoint(url: "postgres://u@a:1,b:2,c:3/db")

    @Test func thePrimaryOnTheNewestTimelineIsChosen() {
        #expect(
            Self.three.choose([.standby, .primary(timeline: 3), .unreachable("refused")], floor: 0)
                == .primary(host: 1, timeline: 3))
        // An old primary restarted on its own next to the promoted one: the newer wins.
        #expect(
            Self.three.choose([.primary(timeline: 3), .primary(timeline: 4), .standby], floor: 0)
                == .primary(host: 1, timeline: 4))
        #expect(
            Self.three.choose([.primary(timeline: 4), .standby, .primary(timeline: 3)], floor: 4)
                == .primary(host: 0, timeline: 4))
    }

    @Test func anOldPrimaryIsNeverChosenOnceANewerTimelineWasSeen() {
        // The promoted host is unreachable; the old primary is back and accepts writes.
        guard case .none(let causes) = Self.three.choose([.primary(timeline: 3), .unreachable("timed out"), .standby], floor: 4)
        else {
            Issue.record("an old primary was chosen")
            return
        }
        #expect(causes.contains("a:1 accepts writes on timeline 3, behind timeline 4: an old primary, not used"))
        #expect(causes.contains("b:2: timed out") && causes.contains("c:3 is a standby"))
    }

    @Test func twoPrimariesOnTheSameTimelineAreNeitherChosen() {
        guard case .none(let causes) = Self.three.choose([.primary(timeline: 5), .standby, .primary(timeline: 5)], floor: 2)
        else {
            Issue.record("one of two primaries on the same timeline was chosen")
            return
        }
        #expect(causes.contains { $0.contains("a:1 and c:3 both accept writes on timeline 5") })
        #expect(Self.three.choose([.standby, .standby, .refused("bad password")], floor: 0) != .primary(host: 0, timeline: 0))
    }

    #if canImport(Glibc)
    /// A server that accepted the connection and then went silent (frozen, or cut off after the
    /// handshake) is answered for as unreachable, not waited on for ever (the time limit fails
    /// a probe that never returns).
    @Test(.timeLimit(.minutes(1))) func aSilentHostIsReportedUnreachable() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let endpoint = try Endpoint(url: "postgres://u@127.0.0.1:\(listener.port)/db")
        let role = await endpoint.probe(host: 0, timeout: .milliseconds(500), logger: quietLogger)
        guard case .unreachable = role else {
            Issue.record("a silent host answered \(role)")
            return
        }
    }
    #endif

    /// The probe's question on a real PostgreSQL (scripts/with-postgres): a primary, on the
    /// timeline its WAL is written on (1 for a fresh cluster).
    @Test func aRealPrimaryAnswersWithItsTimeline() async throws {
        guard let url = ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] else { return }
        let endpoint = try Endpoint(url: url)
        let role = await endpoint.probe(host: 0, timeout: .seconds(10), logger: quietLogger)
        guard case .primary(let timeline) = role else {
            Issue.record("PostgreSQL answered \(role)")
            return
        }
        #expect(timeline >= 1)
    }
}

/// An issuer on a schema of its own on the formation, through every host of its URL: alice
/// bought 10,000 in notes and paid bob 3,000, which bob has redeemed (`before`).
struct OnFormation {
    let schema: String
    let store: PostgresStore
    let harness: IssuerHarness
    let alice: Wallet
    let bob: Int64
    let bobWallet: Wallet
    let before: [[UInt8]]

    init(url: String) async throws {
        schema = "ha_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await PostgresStore.connect(url: url, maxConnections: 1, logger: quietLogger)
        try await admin.transaction { [schema] in try await $0.execute("CREATE SCHEMA \(schema)") }
        await admin.close()
        store = try await PostgresStore.connect(url: url + "?search_path=\(schema)", maxConnections: 4, logger: quietLogger)
        harness = try await IssuerHarness(database: store)
        alice = try await harness.user("alice", funds: 10_000, purchase: 10_000).wallet
        (bob, bobWallet) = try await harness.user("bob")
        before = try harness.pay(3_000, from: alice, to: bobWallet).map(\.encoded)
        #expect(try await harness.issuer.redeem(account: bob, chains: before) == [.credited(amount: 3_000)])
    }
}

#if canImport(Glibc)
/// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes each
/// connection, and nothing ever answers on it.
struct SilentListener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            _ = Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
#endif

/// The issuer on a pg_auto_failover formation (scripts/with-pg-ha): it follows the primary
/// through a failover, and what it acknowledged before stays spent after. Skipped unless the
/// formation's variables are set. One test at a time: each changes the formation. A store that
/// writes to an old primary waits for ever on its synchronous standbys, so each test has a
/// time limit: it fails instead.
@Suite(.serialized) struct PostgresFailoverTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.timeLimit(.minutes(3))) func redemptionsFollowTheNewPrimaryAndStaySpent() async throws {
        guard let url = Self.environment["OW_TEST_POSTGRES_HA_URL"], let failover = Self.environment["OW_PG_HA_FAILOVER"] else {
            return
        }
        let f = try await OnFormation(url: url)
        let (store, h, alice, bob, bobWallet, before) = (f.store, f.harness, f.alice, f.bob, f.bobWallet, f.before)
        let primaryBefore = try await Self.serverPort(store)

        // The monitor promotes the secondary; the old primary restarts as its standby.
        let run = try ProgramRun.run("/bin/sh", ["-c", failover], in: h.scratch.path)
        try #require(run.status == 0, "the failover did not complete: \(run.stderr)")

        // Redemptions go on, on the new primary.
        let after = try h.pay(2_000, from: alice, to: bobWallet).map(\.encoded)
        #expect(try await h.issuer.redeem(account: bob, chains: after) == [.credited(amount: 2_000)])
        #expect(try await Self.serverPort(store) != primaryBefore, "the store still writes to the old primary")
        // What was acknowledged before the failover is on the new primary: refused again.
        #expect(try await h.issuer.redeem(account: bob, chains: before) == [.alreadyCredited(amount: 3_000)])
        #expect(try await h.balance(bob) == 5_000)
        try await h.expectBooksBalance()
        await store.close()
    }

    /// The split brain: after a standby was promoted, the old primary is started again on its
    /// own (without its keeper, as a careless restart would) and accepts writes on its old
    /// timeline. Neither the store that followed the failover nor one opened afterwards with
    /// the old primary listed first ever writes to it.
    @Test(.timeLimit(.minutes(3))) func anOldPrimaryThatComesBackIsNeverWrittenTo() async throws {
        guard let url = Self.environment["OW_TEST_POSTGRES_HA_URL"], let helper = Self.environment["OW_PG_HA_OLD_PRIMARY"] else {
            return
        }
        let f = try await OnFormation(url: url)
        let (schema, store, h, alice, bob, bobWallet, before) = (
            f.schema, f.store, f.harness, f.alice, f.bob, f.bobWallet, f.before
        )

        let run = { (arguments: String) throws -> String in
            let result = try ProgramRun.run("/bin/sh", ["-c", "\"$0\" \(arguments)", helper], in: h.scratch.path)
            try #require(result.status == 0, "old-primary \(arguments) failed: \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let lost = try run("lose").split(separator: " ").map(String.init)
        let (name, port) = (lost[0], try #require(Int(lost[1])))
        let during = try h.pay(2_000, from: alice, to: bobWallet).map(\.encoded)
        #expect(try await h.issuer.redeem(account: bob, chains: during) == [.credited(amount: 2_000)])

        _ = try run("start-alone \(name)")
        do {
            let endpoint = try PostgresStore.Endpoint(url: url)
            let oldURL = "postgres://\(endpoint.user)@127.0.0.1:\(port)/\(endpoint.database ?? endpoint.user)"
            // The split brain is real: the old primary accepts writes, on an older timeline.
            let oldEndpoint = try PostgresStore.Endpoint(url: oldURL)
            let role = await oldEndpoint.probe(host: 0, timeout: .seconds(10), logger: quietLogger)
            guard case .primary(let oldTimeline) = role else {
                Issue.record("the old primary restarted alone answers \(role), not as a primary")
                _ = try run("rejoin \(name)")
                return
            }
            let newURL =
                "postgres://\(endpoint.user)@127.0.0.1:\(try await Self.serverPort(store))/\(endpoint.database ?? endpoint.user)"
            let newRole = await (try PostgresStore.Endpoint(url: newURL)).probe(
                host: 0, timeout: .seconds(10), logger: quietLogger)
            guard case .primary(let newTimeline) = newRole, oldTimeline < newTimeline else {
                Issue.record("the old primary writes on timeline \(oldTimeline), the new one answers \(newRole)")
                _ = try run("rejoin \(name)")
                return
            }
            let old = try await PostgresStore.connect(
                url: oldURL + "?search_path=\(schema)", maxConnections: 1, logger: quietLogger)
            let rowsOnOld = try await Self.rows(old)

            // The store that followed the failover keeps writing to the new primary, heartbeats
            // after the old one came back.
            try await Task.sleep(for: .seconds(3))
            let after = try h.pay(1_000, from: alice, to: bobWallet).map(\.encoded)
            #expect(try await h.issuer.redeem(account: bob, chains: after) == [.credited(amount: 1_000)])
            #expect(try await Self.serverPort(store) != Int64(port), "the store writes to the old primary")
            // A store opened now, the old primary listed first, writes to the new one.
            let others = endpoint.hosts.filter { $0.port != port }.map { "\($0.host):\($0.port)" }
            let oldFirst =
                "postgres://\(endpoint.user)@" + (["127.0.0.1:\(port)"] + others).joined(separator: ",")
                + "/\(endpoint.database ?? endpoint.user)?search_path=\(schema)"
            let fresh = try await PostgresStore.connect(url: oldFirst, maxConnections: 2, logger: quietLogger)
            #expect(try await Self.serverPort(fresh) != Int64(port), "a new store chose the old primary")
            await fresh.close()

            // Nothing reached the old primary; everything acknowledged is on the new one.
            #expect(try await Self.rows(old) == rowsOnOld)
            await old.close()
            for (chains, amount) in [(before, 3_000), (during, 2_000), (after, 1_000)] as [([[UInt8]], UInt64)] {
                #expect(try await h.issuer.redeem(account: bob, chains: chains) == [.alreadyCredited(amount: amount)])
            }
            #expect(try await h.balance(bob) == 6_000)
            try await h.expectBooksBalance()
        } catch {
            _ = try? run("rejoin \(name)")
            throw error
        }
        _ = try run("rejoin \(name)")
        await store.close()
    }

    /// Rows of the spent set and the journal: what any redemption adds to.
    static func rows(_ store: PostgresStore) async throws -> Int64 {
        try await store.transaction { conn in
            try #require(
                try await conn.queryOne("SELECT (SELECT count(*) FROM spent_state) + (SELECT count(*) FROM journal) AS n")
            ).int("n")
        }
    }

    /// The port of the server a write transaction runs on.
    static func serverPort(_ store: PostgresStore) async throws -> Int64 {
        try await store.transaction { conn in
            try await conn.execute("CREATE TEMP TABLE IF NOT EXISTS probe(x int)")
            return try #require(try await conn.queryOne("SELECT inet_server_port() AS port")).int("port")
        }
    }
}
