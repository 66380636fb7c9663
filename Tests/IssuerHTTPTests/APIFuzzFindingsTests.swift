import Foundation
import IssuerCore
import IssuerHTTP
import Testing
import WalletAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What schemathesis found fuzzing the API from openapi.yaml
/// (docs/reliability.md §4), each pinned here so it cannot come back.
@Suite struct APIFuzzFindingsTests {
    /// The routes the document secures with `bearer` that only exist in escrow mode.
    static let escrowRoutes: [(method: String, path: String, body: String?)] = [
        ("GET", "v1/escrow/deposit", nil),
        ("GET", "v1/escrow/withdrawals", nil),
        ("POST", "v1/escrow/withdrawals", #"{"amount":1,"to":""}"#),
        ("GET", "v1/escrow/withdrawals/0x" + String(repeating: "00", count: 32), nil),
        ("GET", "v1/admin/escrow/reconciliation", nil),
        ("POST", "v1/admin/escrow/unclaimed/assign", #"{"txHash":"","logIndex":0,"accountId":0,"reason":"000"}"#),
        ("POST", "v1/admin/escrow/surplus", #"{"amount":1,"txHash":"","reason":"000"}"#),
    ]

    /// A request carrying the Idempotency-Key the withdrawal route requires (the generated
    /// decoder refuses its absence with 400 before any handler runs).
    static func request(
        _ url: URL, method: String, token: String?, body: String?
    ) async throws
        -> (status: Int, headers: [String: String], json: [String: Any])
    {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("fuzz-finding-1", forHTTPHeaderField: "Idempotency-Key")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
        return (http.statusCode, headers, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Found as ST203 "missing required header accepted": without a bearer token every chain
    /// route answered 404 `escrow_not_configured` (the chain was looked at before the caller),
    /// where the document's security scheme says 401. A token that is present still gets 404.
    @Test func anAnonymousCallToAnEscrowRouteIs401NotEscrowNotConfigured() async throws {
        try await HTTPHarness.with { h in
            let (_, tokens, _) = try await h.user("alice")
            for (method, path, body) in Self.escrowRoutes {
                let anonymous = try await Self.request(
                    h.baseURL.appendingPathComponent(path), method: method, token: nil, body: body)
                #expect(anonymous.status == 401, "\(method) \(path)")
                #expect(anonymous.json["code"] as? String == "unauthorized", "\(method) \(path)")
                #expect(anonymous.headers["content-type"] == "application/problem+json", "\(method) \(path)")
                let user = try await Self.request(
                    h.baseURL.appendingPathComponent(path), method: method, token: tokens.accessToken, body: body)
                #expect(user.status == 404 && user.json["code"] as? String == "escrow_not_configured", "\(method) \(path)")
            }
        }
    }

    /// Found as ST204 "wrong response to undeclared method": a method outside HTTPTypes'
    /// registered set (QUERY) on a path the API serves answered 404, not 405 with `Allow` as
    /// docs/server.md promises for every method a path does not serve.
    @Test func anUnregisteredMethodOnAKnownPathIs405WithAllow() async throws {
        try await HTTPHarness.with { h in
            let (_, tokens, _) = try await h.user("alice")
            let cases: [(method: String, path: String, allow: String)] = [
                ("QUERY", "v1/notes/redeem", "POST"),
                ("QUERY", "v1/account", "GET"),
                ("PROPFIND", "v1/admin/accounts/7/freeze", "POST"),
                ("QUERY", "v1/escrow/withdrawals", "GET, POST"),
                ("QUERY", "openapi.yaml", "GET"),
            ]
            for (method, path, allow) in cases {
                for token in [nil, tokens.accessToken] {
                    let answer = try await rawRequest(
                        h.baseURL.appendingPathComponent(path), method: method, token: token, body: Data("{}".utf8))
                    #expect(answer.status == 405, "\(method) \(path)")
                    #expect(answer.headers["allow"] == allow, "\(method) \(path)")
                    #expect(answer.headers["content-type"] == "application/problem+json", "\(method) \(path)")
                    #expect(answer.json["code"] as? String == "method_not_allowed", "\(method) \(path)")
                }
            }
            // A path the API does not have stays 404, and a served method still works.
            let missing = try await rawRequest(h.baseURL.appendingPathComponent("v1/no-such-thing"), method: "QUERY", body: nil)
            #expect(missing.status == 404)
            let account = try await rawRequest(
                h.baseURL.appendingPathComponent("v1/account"), method: "GET", token: tokens.accessToken, body: nil)
            #expect(account.status == 200)
        }
    }
}
