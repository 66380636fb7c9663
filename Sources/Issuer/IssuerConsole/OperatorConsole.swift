import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore
import Mustache
import NIOCore
import OfflineNotes

/// Settings of the operator console.
public struct ConsoleSettings: Sendable {
    /// Mark cookies `Secure`: the server serves HTTPS itself (`--tls-cert`), or sits behind a
    /// TLS proxy (`--console-secure-cookies`).
    public var secureCookies: Bool
    /// The API's per-address limit on login calls; console logins count in the same bucket.
    public var loginsPerMinutePerIP: Int
    /// The API's per-address limit on writes; console actions count in the same bucket.
    public var writesPerMinutePerIP: Int
    /// Writes a minute per admin account (the API's per-account bucket).
    public var writesPerMinutePerAccount: Int
    /// Seconds a console login lasts at most, and without a page viewed.
    public var sessionLifetime: Int64
    public var idleTimeout: Int64

    public init(
        secureCookies: Bool = false, loginsPerMinutePerIP: Int = 60, writesPerMinutePerIP: Int = 6_000,
        writesPerMinutePerAccount: Int = 600,
        sessionLifetime: Int64 = 8 * 3_600, idleTimeout: Int64 = 30 * 60
    ) {
        self.secureCookies = secureCookies
        self.loginsPerMinutePerIP = loginsPerMinutePerIP
        self.writesPerMinutePerIP = writesPerMinutePerIP
        self.writesPerMinutePerAccount = writesPerMinutePerAccount
        self.sessionLifetime = sessionLifetime
        self.idleTimeout = idleTimeout
    }
}

/// The operator console under `/console` (docs/server.md, "Operator console"): server-rendered
/// HTML for admin accounts, on the issuer's own reads and actions. Sessions are rows in the
/// database (several server processes share them); every form carries the session's CSRF
/// token; every answer carries a strict content security policy and `no-store`.
public struct OperatorConsole: Sendable {
    let issuer: Issuer
    let escrow: (any EscrowMonitor)?
    let settings: ConsoleSettings
    let library: MustacheLibrary

    /// Console forms are a few fields; anything larger is refused before it is read further.
    static let maxFormBytes = 16 * 1024

    public init(issuer: Issuer, escrow: (any EscrowMonitor)?, settings: ConsoleSettings) throws {
        self.issuer = issuer
        self.escrow = escrow
        self.settings = settings
        var library = MustacheLibrary()
        for (name, text) in ConsoleTemplates.all { try library.register(text, named: name) }
        self.library = library
    }

    /// Installs the console's routes on `router`: `/console` and everything under it, every
    /// method (the wrong ones answer 405 from the console itself, with its headers).
    public func mount<Context: RemoteAddressRequestContext>(on router: Router<Context>) {
        let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .options, .patch, .trace]
        for path in ["/console", "/console/**"] {
            for method in methods {
                router.on(RouterPath(path), method: method) { request, context in
                    await self.respond(request, address: context.remoteAddress?.ipAddress ?? "unknown")
                }
            }
        }
    }

    // MARK: Answering

    /// A finished answer thrown from deep in a handler: a redirect or a refusal page.
    struct Answer: Error {
        let response: Response
    }

    func respond(_ request: Request, address: String) async -> Response {
        var response: Response
        do {
            response = try await route(request, address: address)
        } catch let answer as Answer {
            response = answer.response
        } catch let error as IssuerError {
            if case .storage = error {
                response = message(.serviceUnavailable, title: "Database unavailable", text: "\(error.description)")
            } else {
                response = message(.badRequest, title: "Refused", text: error.description)
            }
        } catch {
            response = message(
                .internalServerError, title: "Console error",
                text: "The console failed: \(type(of: error)). The server logged nothing secret; try again.")
        }
        for (name, value) in ConsoleSecurity.headers { response.headers[name] = value }
        // Over TLS (or behind a TLS proxy, the same setting as Secure cookies) the browser is told
        // to use HTTPS only, so a later visit cannot be downgraded to plain HTTP and its cookies read.
        if settings.secureCookies {
            response.headers[ConsoleSecurity.strictTransportSecurity.name] = ConsoleSecurity.strictTransportSecurity.value
        }
        return response
    }

    /// The path under /console as its segments: `/console/accounts/7` → ["accounts", "7"].
    static func segments(_ path: String) -> [String] {
        Array(path.split(separator: "/").dropFirst().map(String.init))
    }

    func route(_ request: Request, address: String) async throws -> Response {
        let parts = Self.segments(request.uri.path)
        let query = Form(request.uri.query)
        let method = request.method
        func only(_ allowed: HTTPRequest.Method...) throws {
            guard allowed.contains(method) else {
                var r = message(
                    .methodNotAllowed, title: "Method not allowed",
                    text: "\(request.uri.path) answers \(allowed.map(\.rawValue).joined(separator: ", ")) only.")
                r.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                throw Answer(response: r)
            }
        }
        switch parts.count {
        case 0:
            try only(.get)
            return try await overview(try await admin(request), query: query)
        case 1 where parts[0] == "console.css":
            try only(.get)
            return Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: ConsoleTemplates.css)))
        case 1 where parts[0] == "login":
            try only(.get, .post)
            return method == .get ? try await loginForm(request) : try await logIn(request, address: address)
        case 1 where parts[0] == "logout":
            try only(.post)
            return try await logOut(request)
        case 1 where parts[0] == "fraud-cases":
            try only(.get)
            return try await fraudCases(try await admin(request), query: query)
        case 2 where parts[0] == "fraud-cases":
            try only(.get)
            let session = try await admin(request)
            return try await fraudCase(session, id: try Self.id(parts[1]), query: query)
        case 3 where parts[0] == "fraud-cases" && parts[2] == "review":
            try only(.post)
            let id = try Self.id(parts[1])
            let (session, form) = try await action(request, address: address)
            return try await review(session, id: id, form: form)
        case 1 where parts[0] == "accounts":
            try only(.get)
            return try await accounts(try await admin(request), query: query)
        case 2 where parts[0] == "accounts":
            try only(.get)
            let session = try await admin(request)
            return try await account(session, id: try Self.id(parts[1]), query: query)
        case 3 where parts[0] == "accounts" && parts[2] == "freeze":
            try only(.post)
            let id = try Self.id(parts[1])
            let (session, form) = try await action(request, address: address)
            return try await freeze(session, id: id, form: form)
        case 1 where parts[0] == "debtors":
            try only(.get)
            return try await debtors(try await admin(request))
        case 1 where parts[0] == "audit":
            try only(.get)
            return try await audit(try await admin(request), query: query)
        case 1 where parts[0] == "settings":
            try only(.get)
            return try await settingsPage(try await admin(request))
        default:
            throw notFound("There is no console page at \(request.uri.path).")
        }
    }

    static func id(_ text: String) throws -> Int64 {
        guard let id = Int64(text), id > 0 else { throw Answer(response: OperatorConsole.plain(.notFound, "not found")) }
        return id
    }

    func notFound(_ text: String) -> Answer {
        Answer(response: message(.notFound, title: "Not found", text: text, link: ("/console", "Back to the overview")))
    }

    // MARK: Sessions

    /// The signed-in admin. Without a session a GET is sent to the login page and anything
    /// else is refused; a session whose account is no longer an admin is refused and ended.
    func admin(_ request: Request) async throws -> ConsoleSession {
        guard let token = request.cookies[ConsoleSecurity.sessionCookie]?.value,
            let session = try await issuer.consoleSession(token: token, idleTimeout: settings.idleTimeout)
        else {
            if request.method == .get { throw Answer(response: Self.redirect("/console/login")) }
            throw Answer(
                response: message(
                    .forbidden, title: "Not logged in", text: "Log in to the console first; nothing was changed.",
                    link: ("/console/login", "Log in")))
        }
        guard session.role == "admin" else {
            try? await issuer.closeConsoleSession(token: token)
            var r = message(
                .forbidden, title: "Operators only", text: "This console is for admin accounts; \(session.email) is not one.")
            r.headers[.setCookie] = ConsoleSecurity.cookie(
                ConsoleSecurity.sessionCookie, "", maxAge: 0, secure: settings.secureCookies)
            throw Answer(response: r)
        }
        return session
    }

    /// A POST's checks, in order: from this site, a bounded form, the session, its CSRF token
    /// (compared in constant time), then the write limits. Any failure changes nothing.
    func action(_ request: Request, address: String) async throws -> (ConsoleSession, Form) {
        let form = try await readForm(request)
        let session = try await admin(request)
        try checkToken(form, expected: session.csrf)
        try await limit("ip-write:\(address)", settings.writesPerMinutePerIP, 60)
        try await limit("acct-write:\(session.accountID)", settings.writesPerMinutePerAccount, 60)
        return (session, form)
    }

    func readForm(_ request: Request) async throws -> Form {
        if let why = ConsoleSecurity.crossSiteRefusal(request) {
            throw Answer(response: message(.forbidden, title: "Refused", text: "Refused: \(why). Nothing was changed."))
        }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: Self.maxFormBytes) } catch {
            throw Answer(
                response: message(
                    .contentTooLarge, title: "Form too large",
                    text: "Console forms are limited to \(Self.maxFormBytes) bytes; nothing was changed."))
        }
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        // Only what an HTML form sends: any other body has no fields, hence no token.
        return type == "application/x-www-form-urlencoded" ? Form(String(buffer: buffer)) : Form(nil)
    }

    func checkToken(_ form: Form, expected: String) throws {
        guard let sent = form[ConsoleSecurity.csrfField], ConsoleSecurity.constantTimeEqual(sent, expected) else {
            throw Answer(
                response: message(
                    .forbidden, title: "Refused",
                    text:
                        "The form's security token is missing or does not belong to this session, so the request may come from another site. Nothing was changed; reload the page and try again.",
                    link: ("/console", "Back to the overview")))
        }
    }

    func limit(_ bucket: String, _ limit: Int, _ window: Int64) async throws {
        if let retry = try await issuer.rateLimit(bucket: bucket, limit: limit, windowSeconds: window) {
            var r = message(
                .tooManyRequests, title: "Too many requests", text: "Too many attempts; retry in \(retry) s. Nothing was changed."
            )
            r.headers[.retryAfter] = String(retry)
            throw Answer(response: r)
        }
    }

    func loginForm(
        _ request: Request, status: HTTPResponse.Status = .ok, email: String = "", notice: String? = nil
    ) async throws -> Response {
        // Already in: straight to the overview.
        if request.method == .get, let token = request.cookies[ConsoleSecurity.sessionCookie]?.value,
            let session = try await issuer.consoleSession(token: token, idleTimeout: settings.idleTimeout),
            session.role == "admin"
        {
            return Self.redirect("/console")
        }
        let loginToken = ConsoleSecurity.randomToken()
        var values: [String: Any] = ["loginToken": loginToken, "email": email]
        if let notice { values["notice"] = notice }
        var r = page("login", title: "Log in", session: nil, status: status, values)
        r.headers[.setCookie] = ConsoleSecurity.cookie(
            ConsoleSecurity.loginCookie, loginToken, maxAge: 3_600, secure: settings.secureCookies)
        return r
    }

    func logIn(_ request: Request, address: String) async throws -> Response {
        let form = try await readForm(request)
        try checkToken(form, expected: request.cookies[ConsoleSecurity.loginCookie]?.value ?? "")
        let email = form.text("email") ?? ""
        // The API's buckets: a guesser gains nothing by alternating between the two doors.
        try await limit("ip-auth:\(address)", settings.loginsPerMinutePerIP, 60)
        try await limit(Issuer.loginBucket(email: email), 10, 300)
        let account: Account
        do {
            account = try await issuer.login(email: email, password: form["password"] ?? "")
        } catch {
            guard case .badCredentials = error else { throw error }
            return try await loginForm(request, status: .unauthorized, email: email, notice: "Wrong email or password.")
        }
        guard account.role == "admin" else {
            try await issuer.recordConsoleLoginRefused(account: account.id, from: address)
            return message(
                .forbidden, title: "Operators only",
                text: "This console is for admin accounts; \(account.email) is a user account. Nothing was opened.")
        }
        let (token, _) = try await issuer.openConsoleSession(
            account: account.id, lifetime: settings.sessionLifetime, from: address)
        var r = Self.redirect("/console")
        r.headers[values: .setCookie] = [
            ConsoleSecurity.cookie(
                ConsoleSecurity.sessionCookie, token, maxAge: settings.sessionLifetime, secure: settings.secureCookies),
            ConsoleSecurity.cookie(ConsoleSecurity.loginCookie, "", maxAge: 0, secure: settings.secureCookies),
        ]
        return r
    }

    func logOut(_ request: Request) async throws -> Response {
        let form = try await readForm(request)
        let session = try await admin(request)
        try checkToken(form, expected: session.csrf)
        if let token = request.cookies[ConsoleSecurity.sessionCookie]?.value {
            try await issuer.closeConsoleSession(token: token)
        }
        var r = Self.redirect("/console/login")
        r.headers[.setCookie] = ConsoleSecurity.cookie(
            ConsoleSecurity.sessionCookie, "", maxAge: 0, secure: settings.secureCookies)
        return r
    }

    // MARK: Rendering

    struct NavItem {
        let href: String
        let label: String
        let current: Bool
    }

    struct Chrome {
        let nav: [NavItem]
        let csrf: String
        let email: String
    }

    static let sections: [(key: String, href: String, label: String)] = [
        ("overview", "/console", "Overview"), ("cases", "/console/fraud-cases", "Fraud cases"),
        ("accounts", "/console/accounts", "Accounts"),
        ("debtors", "/console/debtors", "Debtors"), ("audit", "/console/audit", "Audit log"),
        ("settings", "/console/settings", "Settings"),
    ]

    /// A page: `template` inside the layout, with the navigation when signed in. Values are
    /// escaped by the templates; `csrf` is at the top level so every form on the page finds it.
    func page(
        _ template: String, title: String, session: ConsoleSession?, section: String? = nil, status: HTTPResponse.Status = .ok,
        _ values: [String: Any]
    ) -> Response {
        var context = values
        context["title"] = title
        if let session {
            context["csrf"] = session.csrf
            context["chrome"] = Chrome(
                nav: Self.sections.map { NavItem(href: $0.href, label: $0.label, current: $0.key == section) },
                csrf: session.csrf, email: session.email)
        }
        let html =
            library.render(context, withTemplate: template)
            ?? "<!doctype html><title>console</title><p>template \(template) missing</p>"
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }

    struct Link {
        let href: String
        let label: String
    }

    func message(_ status: HTTPResponse.Status, title: String, text: String, link: (String, String)? = nil) -> Response {
        var values: [String: Any] = ["text": text]
        if let link { values["link"] = Link(href: link.0, label: link.1) }
        return page("message", title: title, session: nil, status: status, values)
    }

    static func redirect(_ location: String) -> Response {
        Response(
            status: .seeOther, headers: [.location: location, .contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: "See \(location)\n")))
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
