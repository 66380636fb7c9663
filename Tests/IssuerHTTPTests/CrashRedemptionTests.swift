import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import OpenAPIRuntime
import SQLStore
import Synchronization
import TestSupport
import Testing
import WalletAPI
import WalletCore
import WalletSync
import WalletTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// DESIGN §2.3: the server credits any note state at most once, under any
/// concurrency, crash or retry — for redemptions and refreshes, not only purchases.
@Suite struct CrashRedemptionTests {
    /// A real `wallet-server` is SIGKILLed while eight clients redeem and refresh 48 notes, at
    /// the moment the 12th answer has come back (an event, not a timer: others are in flight).
    /// After a restart every request is retried with the same bytes: each succeeds, each state
    /// is credited once, the refreshes hand back the notes they issued before the crash, and
    /// the books balance to the cent.
    @Test(arguments: HTTPBackend.available)
    func killingTheServerDuringRedemptionsAndRefreshesCreditsEachStateOnce(_ backend: HTTPBackend) async throws {
        let dir = try TemporaryDirectory("crash-redeem")
        let database = try await CrashDatabase(backend, dir: dir)
        let arguments =
            ["--database", dir.path("server.sqlite"), "--keys", dir.path("keys"), "--dev-funding", "--log-level", "error"]
            + (database.postgresURL.map { ["--postgres", $0] } ?? [])
        var server = try await ServerProcess.start(arguments: arguments, directory: dir.path)
        defer { server.kill() }

        // Alice buys 48 notes of 1.00; she pays 24 of them to Bob offline and keeps 24 to refresh.
        let alice = try await ServerAccount.register("alice", on: server.url, walletDirectory: dir.path("alice"))
        let bob = try await ServerAccount.register("bob", on: server.url, walletDirectory: dir.path("bob"))
        try await alice.client.fund(1_000_000)
        for _ in 0..<48 { try await alice.client.purchase(100, into: alice.wallet) }
        var redemptions: [CrashItem] = []
        for _ in 0..<24 {
            let request = try bob.wallet.createRequest(amount: 100)
            let sent = try alice.wallet.pay(request)
            _ = try bob.wallet.receive(sent.bundle, for: request.nonce)
            redemptions.append(
                .init(kind: .redeem, chain: Base64URL.encode(try PaymentBundle(decoding: sent.bundle).chains[0].encoded)))
        }
        let refreshes = try alice.wallet.states(.available).map {
            CrashItem(kind: .refresh, chain: Base64URL.encode($0.chain.encoded))
        }
        // Alternating, so that both kinds are answered, and both in flight, when the server dies.
        let items = zip(redemptions, refreshes).flatMap { [$0, $1] }
        #expect(items.count == 48)

        // Eight workers take the items in turn; the 12th answer kills the server.
        let counters = CrashCounters()
        let work = items  // the workers' copy
        let killAt = 12
        let victim = server
        let (aliceAPI, bobAPI) = (alice.client.api, bob.client.api)
        let aliceKey = Base64URL.encode(alice.wallet.publicKey.bytes)
        let firstAnswers = await withTaskGroup(of: [(Int, CrashAnswer)].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var mine: [(Int, CrashAnswer)] = []
                    while true {
                        let i = counters.next()
                        guard i < work.count else { return mine }
                        guard let answer = await work[i].send(bob: bobAPI, alice: aliceAPI, aliceKey: aliceKey) else { continue }
                        mine.append((i, answer))
                        if counters.answered() == killAt { victim.crash() }
                    }
                }
            }
            return await group.reduce(into: [Int: CrashAnswer]()) { all, mine in for (i, a) in mine { all[i] = a } }
        }
        server.kill()
        #expect(firstAnswers.count >= killAt, "the server died before the kill")
        #expect(
            Set(firstAnswers.keys.map { items[$0].kind }).count == 2,
            "the crash did not come after both redemptions and refreshes")
        #expect(firstAnswers.count < items.count, "every request was answered before the kill: nothing was interrupted")

        // The books balance after the crash, before any retry.
        let issuer = try await database.issuer()
        #expect(try await issuer.checkLedger().isEmpty)

        // Restarted (on another port): every request again, with the same bytes.
        server = try await ServerProcess.start(arguments: arguments, directory: dir.path)
        let (aliceAgain, bobAgain) = (IssuerClient(serverURL: server.url), IssuerClient(serverURL: server.url))
        aliceAgain.useAccessToken(alice.accessToken)
        bobAgain.useAccessToken(bob.accessToken)
        var credits = 0
        var fresh: [String] = []
        for (i, item) in items.enumerated() {
            let retry = try #require(
                await item.send(bob: bobAgain.api, alice: aliceAgain.api, aliceKey: aliceKey), "retry of \(item.kind) \(i) failed"
            )
            let first = firstAnswers[i]
            // At most one "credited" per state across the answer before the crash and the retry.
            #expect(
                retry.status == .alreadyCredited || (retry.status == .credited && first == nil),
                "item \(i): \(String(describing: first)) then \(retry)")
            credits += [first?.status, retry.status].filter { $0 == .credited }.count
            if item.kind == .refresh {
                #expect(retry.notes.count == 1, "refresh \(i) answered \(retry.notes.count) notes")
                if let first { #expect(first.notes == retry.notes, "refresh \(i) issued different notes on retry") }
                fresh += retry.notes
            }
        }
        #expect(credits <= items.count)
        #expect(Set(fresh).count == 24)

        // Each state credited once: Bob holds exactly what he was paid; Alice's refreshes
        // turned 24.00 of notes into 24.00 of fresh notes and nothing else.
        #expect(try await bobAgain.account().balance == 2_400)
        let aliceAccount = try await aliceAgain.account()
        #expect(aliceAccount.balance == 1_000_000 - 4_800)
        #expect(aliceAccount.outstandingNotes == 2_400)
        #expect(try await issuer.outstandingFloat() == 2_400)
        #expect(try await issuer.checkLedger().isEmpty)
        // The fresh notes are Alice's and spendable once the wallet takes them.
        let refreshed = try alice.wallet.states(.available).map(\.ref)
        let added = try alice.wallet.exchange(
            refreshed, for: fresh.map { try Chain(decoding: try #require(Base64URL.decode($0))) })
        #expect(added == 2_400)
        #expect(try alice.wallet.balance().spendable == 2_400)
        await issuer.database.close()
        server.kill()  // before the scratch schema is dropped
    }

    /// Redeem, refresh (both by the payee) and announce (by the payer) of one state, 36
    /// requests at once: exactly one credits it, every refresh answers the same fresh notes,
    /// the announcements find no conflict, and the books balance.
    @Test(arguments: HTTPBackend.available)
    func redeemRefreshAndAnnounceRacingOnOneStateCreditOnce(_ backend: HTTPBackend) async throws {
        try await HTTPHarness.with(backend) { h in
            let (alice, _, _) = try await h.user("alice")
            let (bob, _, _) = try await h.user("bob")
            let config = try await alice.getConfig().ok.body.json
            let aliceWallet = try await h.wallet(for: alice, trusting: config)
            let bobWallet = try await h.wallet(for: bob, trusting: config)
            _ = try await alice.fundAccount(body: .json(.init(amount: 10_000))).ok
            let bought = try await alice.purchaseNotes(
                headers: .init(idempotencyKey: "race-purchase"),
                body: .json(.init(walletKey: Base64URL.encode(aliceWallet.publicKey.bytes), amount: 10_000))
            ).ok.body.json
            try aliceWallet.deposit(try bought.chains.map { try Chain(decoding: try #require(Base64URL.decode($0))) })
            let request = try bobWallet.createRequest(amount: 4_000)
            let sent = try aliceWallet.pay(request)
            _ = try bobWallet.receive(sent.bundle, for: request.nonce)
            let chain = Base64URL.encode(try PaymentBundle(decoding: sent.bundle).chains[0].encoded)
            let bobKey = Base64URL.encode(bobWallet.publicKey.bytes)

            let answers = await withTaskGroup(of: (String, CrashAnswer?).self) { group in
                for i in 0..<36 {
                    group.addTask {
                        switch i % 3 {
                        case 0:
                            return (
                                "redeem", await CrashItem(kind: .redeem, chain: chain).send(bob: bob, alice: alice, aliceKey: "")
                            )
                        case 1:
                            return (
                                "refresh",
                                await CrashItem(kind: .refresh, chain: chain).send(bob: bob, alice: bob, aliceKey: bobKey)
                            )
                        default:
                            guard case .ok(let ok) = try? await alice.announceTransfer(body: .json(.init(chain: chain))),
                                let result = try? ok.body.json
                            else { return ("announce", nil) }
                            return (
                                "announce",
                                CrashAnswer(status: result.status, amount: result.amount, notes: [], fraudCase: result.fraudCase)
                            )
                        }
                    }
                }
                return await group.reduce(into: [(String, CrashAnswer?)]()) { $0.append($1) }
            }
            // Every request is answered: concurrent refreshes of one chain buy their notes under
            // one idempotency key, and those that lose that race answer the winner's notes.
            let failed = answers.filter { $0.1 == nil }.map(\.0)
            #expect(failed.isEmpty, "requests failed: \(failed)")
            let refreshes = answers.filter { $0.0 == "refresh" }.compactMap(\.1)
            let credited = answers.compactMap(\.1).filter { $0.status == .credited && $0.amount > 0 }
            #expect(credited.count == 1, "credited \(credited.count) times")
            #expect(credited.first?.amount == 4_000)
            #expect(answers.compactMap(\.1).allSatisfy { $0.fraudCase == nil && $0.status != .conflict && $0.status != .invalid })
            #expect(refreshes.count == 12)
            let refreshNotes = Set(refreshes.map(\.notes))
            #expect(refreshNotes.count == 1, "refreshes answered \(refreshNotes.count) different sets of notes")

            // The 4,000 is in Bob's account or in his fresh notes, never both and never twice.
            let account = try await bob.getAccount().ok.body.json
            #expect(
                account.balance + account.outstandingNotes == 4_000,
                "balance \(account.balance) + notes \(account.outstandingNotes)")
            #expect(account.outstandingNotes == 4_000)  // a refresh after the credit buys notes with it
            #expect(try await h.issuer.outstandingFloat() == 6_000 + 4_000)
            #expect(try await h.issuer.fraudCases().isEmpty)
            #expect(try await !alice.getAccount().ok.body.json.frozen)
            #expect(try await h.issuer.checkLedger().isEmpty)
        }
    }
}

/// The next item to send, and how many answers came back, shared by the workers.
final class CrashCounters: Sendable {
    private let state = Mutex((next: 0, answered: 0))
    func next() -> Int {
        state.withLock { s in
            defer { s.next += 1 }
            return s.next
        }
    }
    func answered() -> Int {
        state.withLock { s in
            s.answered += 1
            return s.answered
        }
    }
}

/// One value-moving request of the crash test: Bob redeems a chain, or its owner refreshes it.
struct CrashItem: Sendable {
    enum Kind: Sendable { case redeem, refresh }
    let kind: Kind
    let chain: String

    /// Sends it; nil when no answer came back (the server died, or answered an error).
    func send(bob: Client, alice: Client, aliceKey: String) async -> CrashAnswer? {
        switch kind {
        case .redeem:
            guard case .ok(let ok) = try? await bob.redeemNotes(body: .json(.init(chains: [chain]))),
                let result = try? ok.body.json.results.first
            else { return nil }
            return CrashAnswer(status: result.status, amount: result.amount, notes: [], fraudCase: result.fraudCase)
        case .refresh:
            guard case .ok(let ok) = try? await alice.refreshNotes(body: .json(.init(walletKey: aliceKey, chains: [chain]))),
                let body = try? ok.body.json, let result = body.results.first
            else { return nil }
            return CrashAnswer(status: result.status, amount: result.amount, notes: body.chains, fraudCase: result.fraudCase)
        }
    }
}

struct CrashAnswer: Sendable, Equatable, CustomStringConvertible {
    let status: Components.Schemas.RedeemResult.StatusPayload
    let amount: Int64
    let notes: [String]
    let fraudCase: Int64?
    var description: String { "\(status.rawValue) \(amount), \(notes.count) notes" }
}

/// The database under a server process: a SQLite file in the test's directory, or a scratch
/// PostgreSQL schema (dropped when the test lets go of it); the test opens its own issuer on
/// it to check the books.
struct CrashDatabase {
    let sqlitePath: String
    let scratch: ScratchDatabase?

    init(_ backend: HTTPBackend, dir: TemporaryDirectory) async throws {
        sqlitePath = dir.path("server.sqlite")
        scratch = backend == .postgres ? try await ScratchDatabase.postgres(url: try #require(Backend.url), prefix: "c") : nil
    }

    /// `--postgres` for the server process (nil: SQLite).
    var postgresURL: String? { scratch?.schemaURL }

    /// An issuer on the same database (its keys do not matter: it only reads the books).
    func issuer() async throws -> Issuer {
        try await Issuer.readingBooks(of: try scratch.map { try $0.store(maxConnections: 2) } ?? SQLiteStore(path: sqlitePath))
    }
}
