import Foundation
import Hummingbird
import IssuerCore
import IssuerHTTP
import Logging
import OfflineNotes
import OpenAPIRuntime
import Testing
import WalletAPI
import WalletCore
import WalletSync
import WalletTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized) struct HTTPTests {
    /// Buy notes, pay offline, redeem — every step through the real HTTP API.
    @Test(arguments: HTTPBackend.available)
    func purchasePayOfflineAndRedeemOverHTTP(_ backend: HTTPBackend) async throws {
        try await HTTPHarness.with(backend) { h in
            let config = try await h.client().getConfig().ok.body.json
            #expect(config.currency == "EUR")
            let (alice, _, _) = try await h.user("alice")
            let (bob, _, _) = try await h.user("bob")
            let aliceWallet = try await h.wallet(for: alice, trusting: config)
            let bobWallet = try await h.wallet(for: bob, trusting: config)
            _ = try await alice.fundAccount(body: .json(.init(amount: 20_000))).ok

            let purchase = {
                try await alice.purchaseNotes(
                    headers: .init(idempotencyKey: "buy-000000001"),
                    body: .json(.init(walletKey: Base64URL.encode(aliceWallet.publicKey.bytes), amount: 10_000))
                ).ok.body.json
            }
            let chains = try await purchase()
            #expect(try await purchase() == chains)
            try aliceWallet.deposit(try chains.chains.map { try Chain(decoding: Base64URL.decode($0)!) })
            #expect(try await alice.getAccount().ok.body.json.balance == 10_000)
            #expect(try await alice.getAccount().ok.body.json.outstandingNotes == 10_000)

            let request = try bobWallet.createRequest(amount: 2_500)
            let sent = try aliceWallet.pay(request)
            let got = try bobWallet.receive(sent.bundle, for: request.nonce)
            try aliceWallet.confirm(receipt: got.receipt.encoded)

            let held = try bobWallet.states(.received).map { Base64URL.encode($0.chain.encoded) }
            let results = try await bob.redeemNotes(body: .json(.init(chains: held))).ok.body.json.results
            #expect(results.map(\.status) == [.credited])
            #expect(results.map(\.amount) == [2_500])
            let again = try await bob.redeemNotes(body: .json(.init(chains: held))).ok.body.json.results
            #expect(again.map(\.status) == [.alreadyCredited])
            #expect(try await bob.getAccount().ok.body.json.balance == 2_500)

            let states = try await bob.checkStates(
                body: .json(.init(states: [Base64URL.encode(try bobWallet.states(.received)[0].ref.bytes)]))
            ).ok.body.json
            #expect(states.states.map(\.status) == [.redeemed])
            let history = try await alice.getHistory(query: .init(limit: 10)).ok.body.json.entries
            #expect(history.map(\.kind) == ["purchase", "funding"])
        }
    }

    @Test(arguments: HTTPBackend.available)
    func usersSeeOnlyTheirOwnDataAndAdminRoutesRefuseThem(_ backend: HTTPBackend) async throws {
        try await HTTPHarness.with(backend) { h in
            let (alice, aliceTokens, _) = try await h.user("alice")
            let (bob, _, _) = try await h.user("bob")
            _ = try await alice.fundAccount(body: .json(.init(amount: 700))).ok
            #expect(try await bob.getAccount().ok.body.json.balance == 0)
            #expect(try await bob.getAccount().ok.body.json.id != aliceTokens.accountId)
            #expect(try await bob.getHistory(query: .init()).ok.body.json.entries.isEmpty)
            // Admin routes: 403 for users, 401 anonymous.
            guard case .default(let status, _) = try await bob.listFraudCases() else {
                Issue.record("fraud cases served to a user")
                return
            }
            #expect(status == 403)
            guard case .default(let anon, _) = try await h.client().getAccount() else {
                Issue.record("account served anonymously")
                return
            }
            #expect(anon == 401)
            guard
                case .default(let freeze, _) = try await bob.freezeAccount(
                    path: .init(accountId: aliceTokens.accountId), body: .json(.init(frozen: true, reason: "suspected fraud")))
            else {
                Issue.record("user froze an account")
                return
            }
            #expect(freeze == 403)
            // An admin sees them.
            let adminEmail = "root-\(UUID().uuidString.prefix(6))@example.com"
            _ = try await h.issuer.register(email: adminEmail, password: "admin password 123", role: "admin")
            let adminTokens = try await h.client().login(body: .json(.init(email: adminEmail, password: "admin password 123"))).ok
                .body.json
            let admin = h.client(token: adminTokens.accessToken)
            #expect(try await admin.listFraudCases().ok.body.json.cases.isEmpty)
            #expect(try await admin.getFloat().ok.body.json.outstanding == 0)
            _ = try await admin.freezeAccount(
                path: .init(accountId: aliceTokens.accountId), body: .json(.init(frozen: true, reason: "suspected fraud"))
            ).noContent
            #expect(try await alice.getAccount().ok.body.json.frozen)
            #expect(try await admin.getAuditLog(query: .init(limit: 5)).ok.body.json.entries.first?.action == "freeze")
            guard case .default(403, _) = try await bob.getAuditLog(query: .init()) else {
                Issue.record("audit log served to a user")
                return
            }
        }
    }

    @Test func errorsAreProblemJSONWithStableCodes() async throws {
        try await HTTPHarness.with(.sqlite, settings: HTTPSettings(port: 0, maxBodyBytes: 4_096)) { h in
            let (_, tokens, _) = try await h.user("alice")
            let url = h.baseURL.appendingPathComponent("v1/auth/register")
            let bad = try await rawRequest(url, body: Data(#"{"email":"x@y.z","password":"short"}"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.headers["content-type"] == "application/problem+json")
            #expect(bad.json["code"] as? String == "invalid_field")
            #expect(bad.json["field"] as? String == "password")
            let garbage = try await rawRequest(url, body: Data("{not json".utf8))
            #expect(garbage.status == 400)
            let huge = try await rawRequest(
                h.baseURL.appendingPathComponent("v1/notes/redeem"), token: tokens.accessToken,
                body: Data(#"{"chains":["\#(String(repeating: "A", count: 10_000))"]}"#.utf8))
            #expect(huge.status == 413)
            #expect(huge.json["code"] as? String == "body_too_large")
            let forged = try await rawRequest(
                h.baseURL.appendingPathComponent("v1/account"), method: "GET", token: tokens.accessToken + "x", body: nil)
            #expect(forged.status == 401)
            let purchase = try await rawRequest(
                h.baseURL.appendingPathComponent("v1/notes/purchase"), token: tokens.accessToken,
                body: Data(#"{"walletKey":"AAAA","amount":5}"#.utf8))
            #expect(purchase.status == 400, "missing Idempotency-Key header")
        }
    }

    /// The fourth write of an account within a minute is refused with 429, a Retry-After
    /// header saying when the window ends, and no effect; other accounts are not limited.
    @Test func writesAreRateLimitedWithRetryAfter() async throws {
        // The issuer's clock stands still, so all the writes fall in one rate-limit window
        // however slowly the machine runs (a real minute could end between them).
        let start = Timestamp(Date().timeIntervalSince1970)
        let settings = HTTPSettings(
            port: 0, writesPerMinutePerIP: 1_000, loginsPerMinutePerIP: 1_000, account: .init(writesPerMinute: 3))
        try await HTTPHarness.with(.sqlite, settings: settings, clock: { start }) { h in
            let (alice, tokens, _) = try await h.user("alice")
            for _ in 0..<3 { _ = try await alice.fundAccount(body: .json(.init(amount: 1))).ok }
            let limited = try await rawRequest(
                h.baseURL.appendingPathComponent("v1/account/fund"), token: tokens.accessToken, body: Data(#"{"amount":1}"#.utf8))
            #expect(limited.status == 429)
            #expect(limited.json["code"] as? String == "rate_limited")
            let retryAfter = try #require(
                limited.headers["retry-after"].flatMap { Int($0) }, "no Retry-After header: \(limited.headers)")
            #expect((1...60).contains(retryAfter), "Retry-After \(retryAfter) s is outside the one-minute window")
            #expect((limited.json["detail"] as? String)?.contains("retry in \(retryAfter) s") == true)
            // The refused write changed nothing; another account still writes.
            #expect(try await alice.getAccount().ok.body.json.balance == 3)
            let (bob, _, _) = try await h.user("bob")
            _ = try await bob.fundAccount(body: .json(.init(amount: 1))).ok
            #expect(try await bob.getAccount().ok.body.json.balance == 1)
        }
    }

    /// After ten wrong passwords for an address, every spelling of it that reaches the same
    /// account is refused too (spaces around it, other letter case, decomposed accents), the
    /// right password included; another account is not limited.
    @Test func theLoginLimitHoldsForEverySpellingOfTheAddress() async throws {
        let start = Timestamp(Date().timeIntervalSince1970)
        let settings = HTTPSettings(port: 0, writesPerMinutePerIP: 1_000, loginsPerMinutePerIP: 1_000)
        try await HTTPHarness.with(.sqlite, settings: settings, clock: { start - start % 300 }) { h in
            let id = UUID().uuidString.prefix(8).lowercased()
            let email = "v\u{00EF}ctim-\(id)@example.com"  // "ï" composed
            let password = "the right password"
            _ = try await h.client().register(body: .json(.init(email: email, password: password))).created
            func login(_ address: String, _ password: String) async throws -> Int {
                let body = try JSONSerialization.data(withJSONObject: ["email": address, "password": password])
                return try await rawRequest(h.baseURL.appendingPathComponent("v1/auth/login"), body: body).status
            }
            for attempt in 1...10 { #expect(try await login(email, "wrong \(attempt)") == 401) }
            #expect(try await login(email, password) == 429)
            let spellings = [
                " \(email)", "\(email) ", "  \(email)  ", email.uppercased(), "V\u{00CF}CTIM-\(id)@Example.COM",
                "vi\u{0308}ctim-\(id)@example.com",  // "ï" decomposed
            ]
            for spelling in spellings {
                #expect(try await login(spelling, "wrong again") == 429, "\(spelling.debugDescription) got its own limit")
                #expect(try await login(spelling, password) == 429, "\(spelling.debugDescription) logged in past the limit")
            }
            let (_, _, other) = try await h.user("bystander")
            #expect(try await login(other, "correct horse battery") == 200)
        }
    }

    @Test func refreshTokensRotateAndReuseRevokesTheFamily() async throws {
        try await HTTPHarness.with { h in
            let (_, tokens, _) = try await h.user("alice")
            let anonymous = h.client()
            let next = try await anonymous.refresh(body: .json(.init(refreshToken: tokens.refreshToken))).ok.body.json
            #expect(next.refreshToken != tokens.refreshToken)
            // Once its successor was used, replaying the old token is theft, not a lost answer
            // (IssuerConfig.refreshReuseWindow): refused, and the newest token dies with it.
            let third = try await anonymous.refresh(body: .json(.init(refreshToken: next.refreshToken))).ok.body.json
            guard case .default(401, _) = try await anonymous.refresh(body: .json(.init(refreshToken: tokens.refreshToken)))
            else {
                Issue.record("reused refresh token accepted")
                return
            }
            guard case .default(401, _) = try await anonymous.refresh(body: .json(.init(refreshToken: third.refreshToken))) else {
                Issue.record("family not revoked after reuse")
                return
            }
        }
    }
}

@Suite struct MetricsTests {
    /// The listener is cancelled at the end of its test, on purpose.
    static let quiet: Logger = {
        var logger = Logger(label: "metrics-tests")
        logger.logLevel = .critical
        return logger
    }()

    /// The float and the registration counts are for operators: an admin gets them, a user
    /// and an anonymous caller do not.
    @Test func metricsAreServedInPrometheusTextToAnAdminOnly() async throws {
        try await HTTPHarness.with { h in
            let (alice, _, _) = try await h.user("alice")
            _ = try await alice.fundAccount(body: .json(.init(amount: 5))).ok
            guard case .default(401, _) = try await h.client().metrics() else {
                Issue.record("metrics served anonymously")
                return
            }
            guard case .default(403, _) = try await alice.metrics() else {
                Issue.record("metrics served to a user")
                return
            }
            let admin = h.client(token: try await h.adminToken().token)
            guard case .ok(let ok) = try await admin.metrics() else {
                Issue.record("no metrics for the admin")
                return
            }
            let text = try await String(collecting: try ok.body.plainText, upTo: 1 << 20)
            #expect(text.contains("offline_wallet_outstanding_float_minor_units 0"))
            #expect(text.contains("offline_wallet_registrations_total 1"))
        }
    }

    /// `--metrics-address`: a listener of its own serves the same text to a scraper without a
    /// token, and nothing else.
    @Test func theMetricsListenerServesScrapersWithoutAToken() async throws {
        let metrics = IssuerMetrics()
        try await HTTPHarness.with(metrics: metrics) { h in
            _ = try await h.user("alice")
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let listener = IssuerApplication.makeMetricsListener(
                issuer: h.issuer, tokens: h.tokens, metrics: metrics, host: "127.0.0.1", port: 0, logger: Self.quiet
            ) { continuation.yield($0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await listener.runService(gracefulShutdownSignals: []) }
                var iterator = ports.makeAsyncIterator()
                let port = try #require(await iterator.next())
                let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
                let scraped = try await ConventionTests.fetch(base.appendingPathComponent("metrics"))
                #expect(scraped.status == 200)
                #expect(String(decoding: scraped.body, as: UTF8.self).contains("offline_wallet_registrations_total 1"))
                #expect(try await ConventionTests.fetch(base.appendingPathComponent("v1/config")).status == 404)
                group.cancelAll()
            }
        }
    }
}

@Suite struct SyncTests {
    /// A registered, logged-in user with a wallet whose key is registered.
    static func client(_ h: HTTPHarness, _ name: String) async throws -> (IssuerClient, Wallet) {
        let account = try await ServerAccount.register(
            name, on: h.baseURL, walletDirectory: h.scratch.path("sync-" + name), email: "\(name)@sync.test")
        return (account.client, account.wallet)
    }

    /// A payee paid with a double-spent note is credited by the issuer (default policy); her
    /// wallet must then count that note as settled, not as offline money still to redeem.
    @Test func aCreditedConflictIsSettledInTheWallet() async throws {
        try await HTTPHarness.with { h in
            let (aliceServer, alice) = try await Self.client(h, "alice")
            let (bobServer, bob) = try await Self.client(h, "bob")
            let (carolServer, carol) = try await Self.client(h, "carol")
            try await aliceServer.fund(10_000)
            try await aliceServer.purchase(10_000, into: alice)
            let note = try #require(try alice.states(.available).first?.chain)
            let r1 = try bob.createRequest(amount: 4_000)
            _ = try bob.receive(try alice.pay(r1).bundle, for: r1.nonce)
            // A tampered phone spends the same note again, to Carol.
            let (r2, second) = try alice.signAgain(note, to: carol, amount: 3_000, now: UInt64(Date().timeIntervalSince1970))
            _ = try carol.receive(second, for: r2.nonce)

            #expect(try await bobServer.redeemReceived(from: bob) == 4_000)
            #expect(try await carolServer.redeemReceived(from: carol) == 3_000)
            #expect(try carol.balance().unsettled == 0)
            #expect(try carol.states(.settled).count == 1)
            #expect(try await carolServer.account().balance == 3_000)
        }
    }

    /// Sync's refresh: notes near expiry are exchanged for fresh ones of the same value, and a
    /// refresh the issuer committed but whose answer was lost leaves the notes held (never
    /// spendable twice) until the next sync's online check recovers the fresh notes.
    @Test func refreshExchangesNotesAndALostAnswerHoldsThem() async throws {
        try await HTTPHarness.with { h in
            let dave = try await ServerAccount.register("dave", on: h.baseURL, walletDirectory: h.scratch.path("sync-dave"))
            let (c, w) = (dave.client, dave.wallet)
            try await c.fund(5_000)
            try await c.purchase(5_000, into: w)
            let old = try #require(try w.states(.available).first)
            let now = UInt64(Date().timeIntervalSince1970)

            // Nothing is due yet with a short window.
            #expect(try await c.refreshNotes(of: w, expiringWithin: 60, now: now) == 0)
            // Everything is due with a window longer than the note's life.
            #expect(try await c.refreshNotes(of: w, expiringWithin: 400 * 86_400, now: now) == 5_000)
            #expect(try w.balance().spendable == 5_000)
            #expect(try w.states(.settled).map(\.ref) == [old.ref])
            let fresh = try #require(try w.states(.available).first)
            #expect(fresh.ref != old.ref && fresh.amount == 5_000)

            // The next refresh reaches the issuer, which commits it (the old note redeemed, new
            // notes issued), but its answer is lost on the way back.
            let float = try await h.issuer.outstandingFloat()
            let lossy = IssuerClient(serverURL: h.baseURL, transport: LosingTransport { $0 == "refreshNotes" })
            lossy.useAccessToken(dave.accessToken)
            await #expect(throws: IssuerClientError.self) {
                try await lossy.refreshNotes(of: w, expiringWithin: 400 * 86_400, now: now)
            }
            let held = try w.balance()
            #expect(held.spendable == 0, "a note sent to refresh must not be spendable offline")
            #expect(held.needsOnlineCheck == 5_000 && held.total == 5_000)
            #expect(
                try await h.issuer.stateStatus([fresh.ref]) == [fresh.ref: .redeemed],
                "the issuer did not commit the lost refresh")
            #expect(try await h.issuer.outstandingFloat() == float, "the refresh reissued other than the value it took")
            // The next sync's online check sorts it out: the wallet ends with the value once —
            // the old note retired, never released beside the fresh notes the issuer issued for
            // it (doubled), and those fresh notes recovered (not lost with the answer).
            _ = try await c.checkRestoredNotes(of: w)
            let after = try w.balance()
            #expect(
                after.spendable == 5_000 && after.total == 5_000 && after.needsOnlineCheck == 0,
                "after the lost refresh: \(after)")
            #expect(
                try !w.states(.available).contains { $0.ref == fresh.ref }, "the refreshed note was released for spending again")
            #expect(try await c.account().balance == 0)
            #expect(try await h.issuer.outstandingFloat() == float)
        }
    }
}
