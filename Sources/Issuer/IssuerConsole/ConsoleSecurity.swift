import Foundation
import HTTPTypes
import Hummingbird
import OfflineNotes

/// The console's security rules in one place (docs/server.md, "Operator console").
enum ConsoleSecurity {
    /// The session cookie: a random token whose SHA-256 names a `console_session` row.
    static let sessionCookie = "ow_console"
    /// Before login there is no session, so the login form's CSRF token is a double-submit
    /// cookie: the same random value in this cookie and in the form.
    static let loginCookie = "ow_console_login"
    /// Every form's hidden CSRF field.
    static let csrfField = "csrf"

    /// Headers on every console answer, pages, redirects, errors and the style sheet alike.
    /// The policy allows our own style sheet, images from data: URLs, forms to ourselves only,
    /// and nothing else: no script at all, no frames, no other site.
    static let headers: [(HTTPField.Name, String)] = [
        (
            .contentSecurityPolicy,
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        (fieldName("X-Content-Type-Options"), "nosniff"),
        (fieldName("Referrer-Policy"), "no-referrer"),
        (fieldName("X-Frame-Options"), "DENY"),
        (.cacheControl, "no-store"),
    ]

    /// HSTS on every answer of a console served over TLS: HTTPS only for this host for a year.
    /// Not `includeSubDomains`: the console's host says nothing of its neighbours.
    static let strictTransportSecurity = (name: fieldName("Strict-Transport-Security"), value: "max-age=31536000")

    /// `Set-Cookie` for `name`: HttpOnly, SameSite=Strict, Path=/console, Secure over TLS.
    /// `maxAge` 0 deletes the cookie.
    static func cookie(_ name: String, _ value: String, maxAge: Int64, secure: Bool) -> String {
        "\(name)=\(value); Path=/console; Max-Age=\(max(0, maxAge)); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Compares two secrets in time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count, !x.isEmpty else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// A fresh random token (32 bytes, base64url).
    static func randomToken() -> String {
        var g = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// Why a POST is refused before its form is looked at: it comes from another site.
    ///
    /// `Origin`, when present, must name this host (the `Host` header, port included). Our own
    /// `Referrer-Policy: no-referrer` makes browsers send `Origin: null` on same-origin posts,
    /// so `null` counts as absent; `Sec-Fetch-Site`, which that policy does not touch, must then
    /// be `same-origin` when the browser sends it. A `Referer`, if one is sent anyway, must name
    /// this host too. The CSRF token is checked after this in every case.
    static func crossSiteRefusal(_ request: Request) -> String? {
        let host = request.head.authority ?? ""
        if let origin = request.headers[.origin], origin != "null", authority(of: origin) != host.lowercased() {
            return "the form was sent from \(origin), not from this console"
        }
        if let site = request.headers[fieldName("Sec-Fetch-Site")], site != "same-origin" {
            return "the browser says the form came from a \(site) page"
        }
        if let referer = request.headers[.referer], authority(of: referer) != host.lowercased() {
            return "the form was sent from another site"
        }
        return nil
    }

    /// `host[:port]` of an absolute URL, lower-cased, default ports dropped; nil if it has none.
    static func authority(of url: String) -> String? {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), let host = c.host?.lowercased() else {
            return nil
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        guard let port = c.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else { return shownHost }
        return "\(shownHost):\(port)"
    }
}

/// `application/x-www-form-urlencoded` fields (a form body or a query string): `+` is a space,
/// `%XX` a byte. A name given twice keeps its first value.
struct Form: Sendable {
    private(set) var fields: [String: String] = [:]

    init(_ text: String?) {
        guard let text else { return }
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
    }

    subscript(_ name: String) -> String? { fields[name] }

    /// The field trimmed, nil when absent or blank.
    func text(_ name: String) -> String? {
        guard let v = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty else { return nil }
        return v
    }

    /// The field as a positive id, nil when absent, blank or not one.
    func id(_ name: String) -> Int64? { text(name).flatMap(Int64.init).flatMap { $0 > 0 ? $0 : nil } }

    /// Percent-encodes a value for a query string we build into a link.
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// A header field name from a literal the console writes (valid by construction).
private func fieldName(_ name: String) -> HTTPField.Name {
    guard let field = HTTPField.Name(name) else { preconditionFailure("\(name) is not a valid header field name") }
    return field
}
