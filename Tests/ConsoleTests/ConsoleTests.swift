import Foundation
import IssuerCore
import IssuerHTTP
import IssuerTesting
import SQLStore
import TestSupport
import Testing

/// The operator console over real HTTP on loopback (docs/server.md, "Operator console").
@Suite struct ConsoleTests {
    static let pages = [
        "/console", "/console/fraud-cases", "/console/fraud-cases/1", "/console/accounts", "/console/accounts/1",
        "/console/debtors", "/console/audit", "/console/settings",
    ]

    static func expectSecurityHeaders(_ page: Page, _ what: String) {
        #expect(
            page.headers["content-security-policy"]?.hasPrefix(
                "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'") == true,
            "\(what)")
        #expect(page.headers["x-content-type-options"] == "nosniff", "\(what)")
        #expect(page.headers["referrer-policy"] == "no-referrer", "\(what)")
        #expect(page.headers["cache-control"] == "no-store", "\(what)")
    }

    /// Anonymous requests see no console page: every GET is sent to the login page, every POST
    /// refused; each answer carries the security headers.
    @Test func anonymousRequestsAreSentToLoginAndRefused() async throws {
        try await ConsoleHarness.with { h in
            let b = h.browser()
            for path in Self.pages {
                let page = try await b.get(path)
                #expect(page.status == 303, "\(path)")
                #expect(page.location == "/console/login", "\(path)")
                #expect(!page.body.contains("Overview"), "\(path)")
                Self.expectSecurityHeaders(page, path)
            }
            let post = try await b.post(
                "/console/accounts/2/freeze", [("frozen", "1"), ("reason", "no session"), ("confirm", "yes")])
            #expect(post.status == 403)
            #expect(try await h.issuer.account(h.user.id).frozen == false)
            let login = try await b.get("/console/login")
            #expect(login.status == 200 && login.body.contains("<form class=\"login\""))
            Self.expectSecurityHeaders(login, "login")
            let css = try await b.get("/console/console.css")
            #expect(css.status == 200 && css.headers["content-type"] == "text/css; charset=utf-8")
            Self.expectSecurityHeaders(css, "css")
            let missing = try await b.get("/console/nothing-here")
            #expect(missing.status == 404)
            Self.expectSecurityHeaders(missing, "404")
        }
    }

    /// An admin logs in through the form: the session cookie is HttpOnly, SameSite=Strict,
    /// Path=/console, expiring, not Secure on plain HTTP; every page renders; logout ends the
    /// session for good (the old cookie is refused afterwards). Both databases.
    @Test(arguments: Backend.available)
    func adminLogsInSeesEveryPageAndLogsOut(_ backend: Backend) async throws {
        try await ConsoleHarness.with(backend) { h in
            let fraud = try await h.makeFraudCase()
            let b = h.browser()
            let login = try await b.logIn(h.admin.email)
            #expect(login.status == 303 && login.location == "/console")
            let session = try #require(login.setCookies.first { $0.hasPrefix("ow_console=") })
            for flag in ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age=28800"] {
                #expect(session.contains(flag), "\(flag) in \(session)")
            }
            #expect(!session.contains("Secure"))
            Self.expectSecurityHeaders(login, "login answer")

            let expected: [(String, [String])] = [
                ("/console", ["Overview", "reconciled to the cent", "<svg class=\"chart\"", "Fraud cases opened"]),
                ("/console/fraud-cases", ["#\(fraud.caseID)", "alice@console.test", "recovered"]),
                (
                    "/console/fraud-cases/\(fraud.caseID)",
                    [
                        "Fraud case #\(fraud.caseID)", "Transfer hash", "Signature", "alice@console.test",
                        "Who was paid from whom", "50.00 EUR to",
                    ]
                ),
                ("/console/accounts", ["alice@console.test", "ops@console.test"]),
                ("/console/accounts/\(fraud.alice)", ["alice@console.test", "Wallet keys", "fraud_recovery", "frozen"]),
                ("/console/debtors", ["alice@console.test", "50.00 EUR"]),
                ("/console/audit", ["fraud_case", "console_login", "<td>the issuer</td><td>fraud_case</td>"]),
                ("/console/settings", ["Issuing keys", "Most a wallet holds offline", "1000.00 EUR", "Version 6"]),
                // The filters' queries, on this database too.
                ("/console?range=24h", ["last 24 hours, per hour", "<svg class=\"chart\""]),
                ("/console?range=12w", ["last 12 weeks, per week"]),
                ("/console/fraud-cases?status=recovered&account=\(fraud.carol)", ["#\(fraud.caseID)"]),
                ("/console/fraud-cases?status=open", ["No fraud case matches."]),
                ("/console/accounts?q=ALICE%40console", ["alice@console.test"]),
                ("/console/accounts?q=\(fraud.alice)", ["alice@console.test"]),
                ("/console/accounts?q=100%25_", ["No account matches."]),
                ("/console/audit?action=fraud_case&q=double+spent", ["fraud_case", "double spent"]),
                ("/console/audit?actor=\(h.admin.id)", ["console_login"]),
            ]
            for (path, texts) in expected {
                let page = try await b.get(path)
                #expect(page.status == 200, "\(path)")
                for text in texts { #expect(page.body.contains(text), "\(path) shows \(text)") }
                for secret in ["password_hash", "secret.key", "BEGIN"] {
                    #expect(!page.body.contains(secret), "\(path) shows no \(secret)")
                }
                Self.expectSecurityHeaders(page, path)
            }
            let overview = try await b.get("/console")
            let token = try #require(Browser.csrf(in: overview.body))
            let out = try await b.post("/console/logout", [("csrf", token)])
            #expect(out.status == 303 && out.location == "/console/login")
            #expect(out.setCookies.contains { $0.hasPrefix("ow_console=;") && $0.contains("Max-Age=0") })
            // The old cookie, replayed: the session is gone on the server, not just in the browser.
            let replay = Browser(baseURL: h.baseURL)
            replay.cookies["ow_console"] = String(session.dropFirst("ow_console=".count).prefix { $0 != ";" })
            #expect(try await replay.get("/console").location == "/console/login")
            let audit = try await h.issuer.auditLog(matching: AuditFilter(actor: h.admin.id))
            #expect(audit.map(\.action).contains("console_login") && audit.map(\.action).contains("console_logout"))
        }
    }

    /// Cookies are Secure when the console is served over TLS or behind a TLS proxy, and every
    /// answer then carries HSTS; over plain HTTP neither.
    @Test func cookiesAreSecureBehindTLS() async throws {
        var settings = HTTPSettings(port: 0)
        settings.consoleSecureCookies = true
        try await ConsoleHarness.with(settings: settings) { h in
            let b = h.browser()
            let form = try await b.get("/console/login")
            #expect(form.setCookies.first?.contains("; Secure") == true)
            #expect(form.headers["strict-transport-security"] == "max-age=31536000")
            let login = try await b.logIn(h.admin.email)
            #expect(login.setCookies.first { $0.hasPrefix("ow_console=") }?.contains("; Secure") == true)
            #expect(login.headers["strict-transport-security"] == "max-age=31536000")
        }
        try await ConsoleHarness.with { h in
            let plain = try await h.browser().get("/console/login")
            #expect(plain.headers["strict-transport-security"] == nil)
        }
    }

    /// A user account's right password opens nothing: 403, no session cookie, every page still
    /// sends it to the login page, and the refusal is audited. An API bearer token (admin or
    /// not) is no console login either.
    @Test func aUserAccountIsRefusedEveryPage() async throws {
        try await ConsoleHarness.with { h in
            let b = h.browser()
            let login = try await b.logIn(h.user.email)
            #expect(login.status == 403)
            #expect(login.body.contains("Operators only") && login.body.contains("is a user account"))
            #expect(!login.setCookies.contains { $0.hasPrefix("ow_console=") && !$0.contains("Max-Age=0") })
            #expect(b.cookies["ow_console"] == nil)
            for path in Self.pages {
                let page = try await b.get(path)
                #expect(page.status == 303 && page.location == "/console/login", "\(path)")
            }
            let bearer = try await b.get(
                "/console",
                headers: [
                    "Authorization": "Bearer "
                        + AccessTokens(secret: Array(repeating: 9, count: 32)).issue(account: h.admin.id, role: "admin")
                ])
            #expect(bearer.status == 303)
            #expect(try await h.issuer.auditLog(matching: AuditFilter(action: "console_login_refused")).first?.actor == h.user.id)
            let wrong = try await b.logIn(h.admin.email, password: "not the password")
            #expect(wrong.status == 401 && wrong.body.contains("Wrong email or password."))
        }
    }

    /// Sessions expire: after 30 minutes without a page, and after 8 hours whatever happens;
    /// an expired cookie is sent back to the login page (and its row deleted).
    @Test func sessionsExpireWhenIdleAndAfterTheirLifetime() async throws {
        let clock = TestClock(UInt64(Date().timeIntervalSince1970))
        try await ConsoleHarness.with(clock: clock) { h in
            let b = h.browser()
            _ = try await b.logIn(h.admin.email)
            clock.advance(29 * 60)
            #expect(try await b.get("/console").status == 200, "29 minutes idle")
            clock.advance(31 * 60)
            #expect(try await b.get("/console").location == "/console/login", "31 minutes idle")
            let cookie = try #require(b.cookies["ow_console"])
            #expect(try await h.issuer.consoleSession(token: cookie, idleTimeout: 1_000_000) == nil, "the expired row is gone")

            _ = try await b.logIn(h.admin.email)
            for _ in 0..<16 {  // busy for 8 hours, a page every 30 minutes
                clock.advance(30 * 60 - 1)
                #expect(try await b.get("/console/settings").status == 200)
            }
            clock.advance(30 * 60)
            #expect(try await b.get("/console").location == "/console/login", "past the 8-hour lifetime")
        }
    }

    /// A session whose account stops being an admin is refused (403) at its next request and ended.
    @Test func aDemotedAdminsSessionIsRefused() async throws {
        try await ConsoleHarness.with { h in
            let b = h.browser()
            _ = try await b.logIn(h.admin.email)
            #expect(try await b.get("/console").status == 200)
            try await h.issuer.database.transaction { conn in
                try await conn.execute("UPDATE account SET role = 'user' WHERE id = ?", h.admin.id)
            }
            let refused = try await b.get("/console/accounts")
            #expect(refused.status == 403)
            #expect(try await b.get("/console").status == 303)
        }
    }

    /// Forged posts change nothing: no token, a wrong token, another session's token, a
    /// non-form body, and a right token sent from another origin are all refused with 403.
    @Test func postsWithoutTheSessionsCSRFTokenAreRefused() async throws {
        try await ConsoleHarness.with { h in
            let b = h.browser()
            _ = try await b.logIn(h.admin.email)
            let other = h.browser()
            _ = try await other.logIn(h.admin.email)
            let otherToken = try #require(Browser.csrf(in: try await other.get("/console").body))
            let token = try #require(Browser.csrf(in: try await b.get("/console/accounts/\(h.user.id)").body))
            #expect(token != otherToken)
            let path = "/console/accounts/\(h.user.id)/freeze"
            let base = [("frozen", "1"), ("reason", "forged"), ("confirm", "yes")]
            let forged: [(String, Page)] = [
                ("no token", try await b.post(path, base)),
                ("wrong token", try await b.post(path, base + [("csrf", String(token.reversed()))])),
                ("another session's token", try await b.post(path, base + [("csrf", otherToken)])),
                ("JSON body", try await b.post(path, [], headers: ["Content-Type": "application/json"])),
                ("cross-origin", try await b.post(path, base + [("csrf", token)], headers: ["Origin": "https://evil.example"])),
                ("cross-site fetch", try await b.post(path, base + [("csrf", token)], headers: ["Sec-Fetch-Site": "cross-site"])),
                (
                    "login without its token",
                    try await h.browser().post(
                        "/console/login", [("email", h.admin.email), ("password", ConsoleHarness.password)])
                ),
            ]
            for (what, page) in forged {
                #expect(page.status == 403, "\(what)")
                Self.expectSecurityHeaders(page, what)
            }
            #expect(try await h.issuer.account(h.user.id).frozen == false)
            #expect(try await h.issuer.auditLog(matching: AuditFilter(action: "freeze")).isEmpty)
            // The same post with the token and this site's origin goes through.
            let origin = "http://127.0.0.1:\(h.baseURL.port ?? 0)"
            let ok = try await b.post(
                path, base + [("csrf", token)], headers: ["Origin": origin, "Sec-Fetch-Site": "same-origin"])
            #expect(ok.status == 303)
            #expect(try await h.issuer.account(h.user.id).frozen == true)
        }
    }

    /// Freezing asks first (nothing changes on the first post), needs a reason, then freezes and
    /// writes who and why to the audit log; unfreezing likewise. Admin accounts cannot be frozen here.
    @Test func freezeAndUnfreezeAskForConfirmationAndAreAudited() async throws {
        try await ConsoleHarness.with { h in
            let b = h.browser()
            _ = try await b.logIn(h.admin.email)
            let token = try #require(Browser.csrf(in: try await b.get("/console/accounts/\(h.user.id)").body))
            let path = "/console/accounts/\(h.user.id)/freeze"
            let noReason = try await b.post(path, [("csrf", token), ("frozen", "1"), ("reason", " "), ("confirm", "yes")])
            #expect(noReason.status == 400 && noReason.body.contains("reason"))
            let ask = try await b.post(path, [("csrf", token), ("frozen", "1"), ("reason", "chargeback ticket 17")])
            #expect(ask.status == 200)
            #expect(
                ask.body.contains("Freeze account \(h.user.id)") && ask.body.contains("chargeback ticket 17")
                    && ask.body.contains("name=\"confirm\" value=\"yes\""))
            #expect(try await h.issuer.account(h.user.id).frozen == false, "asking changed nothing")
            let done = try await b.post(
                path, [("csrf", token), ("frozen", "1"), ("reason", "chargeback ticket 17"), ("confirm", "yes")])
            #expect(done.status == 303 && done.location == "/console/accounts/\(h.user.id)?done=frozen")
            #expect(try await h.issuer.account(h.user.id).frozen == true)
            #expect(try await b.get(done.location ?? "").body.contains("The account is frozen"))
            _ = try await b.post(path, [("csrf", token), ("frozen", "0"), ("reason", "ticket 17 resolved"), ("confirm", "yes")])
            #expect(try await h.issuer.account(h.user.id).frozen == false)
            let lines = try await h.issuer.auditLog(matching: AuditFilter(actor: h.admin.id))
            let freeze = try #require(lines.first { $0.action == "freeze" })
            #expect(freeze.detail.contains("chargeback ticket 17") && freeze.detail.contains("account \(h.user.id)"))
            #expect(lines.contains { $0.action == "unfreeze" && $0.detail.contains("ticket 17 resolved") })
            let audit = try await b.get("/console/audit?action=freeze")
            #expect(
                audit.body.contains("chargeback ticket 17") && audit.body.contains(h.admin.email)
                    && !audit.body.contains("ticket 17 resolved"))
            let adminFreeze = try await b.post(
                "/console/accounts/\(h.admin.id)/freeze",
                [("csrf", token), ("frozen", "1"), ("reason", "locking out a colleague"), ("confirm", "yes")])
            #expect(adminFreeze.status == 403)
            #expect(
                adminFreeze.body.contains(
                    "Only user accounts can be frozen or unfrozen; account \(h.admin.id) is an admin account."),
                "the API's rule and words")
            #expect(try await h.issuer.account(h.admin.id).frozen == false)
        }
    }

    /// A review of a fraud case is asked for again, then recorded in the audit log with the
    /// admin and shown on the case; the case's status (which the money rules read) is unchanged.
    @Test func aFraudCaseReviewIsConfirmedAndAudited() async throws {
        try await ConsoleHarness.with { h in
            let fraud = try await h.makeFraudCase()
            let b = h.browser()
            _ = try await b.logIn(h.admin.email)
            let casePath = "/console/fraud-cases/\(fraud.caseID)"
            let token = try #require(Browser.csrf(in: try await b.get(casePath).body))
            let ask = try await b.post(casePath + "/review", [("csrf", token), ("note", "owner called, debt plan agreed")])
            #expect(ask.status == 200 && ask.body.contains("Record a review of case #\(fraud.caseID)?"))
            #expect(try await h.issuer.fraudCaseReviews(fraud.caseID).isEmpty, "asking recorded nothing")
            let forged = try await b.post(casePath + "/review", [("note", "forged"), ("confirm", "yes")])
            #expect(forged.status == 403)
            let done = try await b.post(
                casePath + "/review", [("csrf", token), ("note", "owner called, debt plan agreed"), ("confirm", "yes")])
            #expect(done.status == 303 && done.location == casePath + "?done=reviewed")
            let reviews = try await h.issuer.fraudCaseReviews(fraud.caseID)
            #expect(
                reviews.count == 1 && reviews.first?.actor == h.admin.id
                    && reviews.first?.detail == "case \(fraud.caseID): owner called, debt plan agreed")
            let page = try await b.get(done.location ?? "")
            #expect(
                page.body.contains("owner called, debt plan agreed") && page.body.contains(h.admin.email)
                    && page.body.contains("The review is recorded"))
            #expect(try await h.issuer.fraudCase(id: fraud.caseID)?.status == "recovered")
            #expect(
                try await b.post(
                    "/console/fraud-cases/999/review", [("csrf", token), ("note", "no such case"), ("confirm", "yes")]
                ).status == 404)
        }
    }

    /// Hostile text (a reason holding a script, an email with quote and ampersand) is shown
    /// escaped on every page it reaches, never as markup.
    @Test func hostileDataIsEscaped() async throws {
        try await ConsoleHarness.with { h in
            let b = h.browser()
            _ = try await b.logIn(h.admin.email)
            let token = try #require(Browser.csrf(in: try await b.get("/console").body))
            let hostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>"
            let path = "/console/accounts/\(h.user.id)/freeze"
            let ask = try await b.post(path, [("csrf", token), ("frozen", "1"), ("reason", hostile)])
            _ = try await b.post(path, [("csrf", token), ("frozen", "1"), ("reason", hostile), ("confirm", "yes")])
            let audit = try await b.get("/console/audit")
            let accounts = try await b.get("/console/accounts?q=" + Browser.encode("<script>"))
            let account = try await b.get("/console/accounts/\(h.user.id)")
            for (what, page) in [("confirm", ask), ("audit", audit), ("search", accounts), ("account", account)] {
                #expect(!page.body.contains("<script>"), "\(what)")
                #expect(!page.body.contains("<img src=x"), "\(what)")
            }
            #expect(audit.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
            #expect(account.body.contains("o&#39;neil&amp;co@console.test"))
            #expect(accounts.body.contains("value=\"&lt;script&gt;\""))
        }
    }

    /// Console logins count against the API's per-address login limit. The limit's windows are
    /// whole minutes of the issuer's clock, so the clock stands still at a minute's start: on the
    /// real clock the three logins could straddle two windows (it failed so once, in a slow run).
    @Test func consoleLoginsAreRateLimited() async throws {
        let now = UInt64(Date().timeIntervalSince1970)
        try await ConsoleHarness.with(settings: HTTPSettings(port: 0, loginsPerMinutePerIP: 2), clock: TestClock(now - now % 60))
        { h in
            let b = h.browser()
            #expect(try await b.logIn(h.admin.email, password: "wrong password 1").status == 401)
            #expect(try await b.logIn(h.admin.email, password: "wrong password 2").status == 401)
            let limited = try await b.logIn(h.admin.email)
            #expect(limited.status == 429 && limited.headers["retry-after"] != nil)
            #expect(b.cookies["ow_console"] == nil)
        }
    }

    /// The per-address login limit counts every spelling of the address that reaches the
    /// account: after ten wrong passwords, the right one through another spelling is refused.
    @Test func theConsoleLoginLimitHoldsForEverySpellingOfTheAddress() async throws {
        let now = UInt64(Date().timeIntervalSince1970)
        try await ConsoleHarness.with(
            settings: HTTPSettings(port: 0, loginsPerMinutePerIP: 1_000), clock: TestClock(now - now % 300)
        ) { h in
            let b = h.browser()
            for attempt in 1...10 {
                #expect(try await b.logIn(h.admin.email, password: "wrong password \(attempt)").status == 401)
            }
            for spelling in [" \(h.admin.email)", "\(h.admin.email) ", h.admin.email.uppercased()] {
                let limited = try await b.logIn(spelling)
                #expect(limited.status == 429, "\(spelling.debugDescription) was not limited")
                #expect(b.cookies["ow_console"] == nil)
            }
        }
    }
}
