import Foundation
import IssuerTesting
import OfflineNotes
import TestSupport
import Testing

@testable import IssuerCore
@testable import SQLStore

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

/// The issuer on a pg_auto_failover formation (scripts/with-pg-ha): it follows the primary
/// through a failover, and what it acknowledged before stays spent after. Skipped unless the
/// formation's variables are set.
@Suite struct PostgresFailoverTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test func redemptionsFollowTheNewPrimaryAndStaySpent() async throws {
        guard let url = Self.environment["OW_TEST_POSTGRES_HA_URL"], let failover = Self.environment["OW_PG_HA_FAILOVER"] else {
            return
        }
        let schema = "ha_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await PostgresStore.connect(url: url, maxConnections: 1, logger: quietLogger)
        try await admin.transaction { try await $0.execute("CREATE SCHEMA \(schema)") }
        await admin.close()
        let store = try await PostgresStore.connect(url: url + "?search_path=\(schema)", maxConnections: 4, logger: quietLogger)
        let h = try await IssuerHarness(database: store)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let before = try h.pay(3_000, from: alice, to: bobWallet).map(\.encoded)
        #expect(try await h.issuer.redeem(account: bob, chains: before) == [.credited(amount: 3_000)])
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

    /// The port of the server a write transaction runs on.
    static func serverPort(_ store: PostgresStore) async throws -> Int64 {
        try await store.transaction { conn in
            try await conn.execute("CREATE TEMP TABLE IF NOT EXISTS probe(x int)")
            return try #require(try await conn.queryOne("SELECT inet_server_port() AS port")).int("port")
        }
    }
}
