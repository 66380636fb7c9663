import Foundation
import IssuerCore
import IssuerHTTP
import Testing
import WalletAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server's HTTP conventions: the document it serves, 405, strict JSON
/// bodies, query ranges, and metrics labelled by the status the client really got.
@Suite struct ConventionTests {
    /// The raw answer to a request: status, headers (lower-cased names) and body bytes.
    static func fetch(
        _ url: URL, method: String = "GET", token: String? = nil, body: Data? = nil
    ) async throws
        -> (status: Int, headers: [String: String], body: Data)
    {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
        return (http.statusCode, headers, data)
    }

    static func json(_ data: Data) -> [String: Any] { ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:] }

    /// Sources/Protocol/WalletAPI/openapi.yaml, read from the source tree.
    static var sourceDocument: Data {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try Data(contentsOf: root.appendingPathComponent("Sources/Protocol/WalletAPI/openapi.yaml"))
        }
    }

    @Test func theOpenAPIDocumentIsServedAsTheServerWasGeneratedFromIt() async throws {
        try await HTTPHarness.with { h in
            let answer = try await Self.fetch(h.baseURL.appendingPathComponent("openapi.yaml"))
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == "application/yaml")
            #expect(
                answer.body == (try Self.sourceDocument),
                "the served document differs from Sources/Protocol/WalletAPI/openapi.yaml")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("operationId: fundAccount"))
        }
    }

    @Test func aWrongMethodIs405WithAllowAndAnUnknownPathStays404() async throws {
        try await HTTPHarness.with { h in
            let (_, tokens, _) = try await h.user("alice")
            // GET-only path, with and without a token: 405 before anything else is looked at.
            for token in [nil, tokens.accessToken] {
                let post = try await Self.fetch(
                    h.baseURL.appendingPathComponent("v1/account"), method: "POST", token: token, body: Data("{}".utf8))
                #expect(post.status == 405)
                #expect(post.headers["allow"] == "GET")
                #expect(post.headers["content-type"] == "application/problem+json")
                #expect(Self.json(post.body)["code"] as? String == "method_not_allowed")
                #expect(Self.json(post.body)["status"] as? Int == 405)
            }
            // POST-only path.
            let get = try await Self.fetch(h.baseURL.appendingPathComponent("v1/account/fund"), token: tokens.accessToken)
            #expect(get.status == 405)
            #expect(get.headers["allow"] == "POST")
            // A templated path.
            let put = try await Self.fetch(
                h.baseURL.appendingPathComponent("v1/admin/accounts/7/freeze"), method: "PUT", body: Data("{}".utf8))
            #expect(put.status == 405)
            #expect(put.headers["allow"] == "POST")
            let delete = try await Self.fetch(h.baseURL.appendingPathComponent("openapi.yaml"), method: "DELETE")
            #expect(delete.status == 405)
            #expect(delete.headers["allow"] == "GET")
            // HEAD is not served (Hummingbird's generated HEAD routes lose the request metrics).
            let head = try await Self.fetch(h.baseURL.appendingPathComponent("health"), method: "HEAD")
            #expect(head.status == 405)
            #expect(head.headers["allow"] == "GET")
            #expect(head.body.isEmpty)
            // Unknown paths: 404 problem+json, whatever the method.
            for method in ["GET", "POST"] {
                let missing = try await Self.fetch(
                    h.baseURL.appendingPathComponent("v1/no-such-thing"), method: method,
                    body: method == "POST" ? Data("{}".utf8) : nil)
                #expect(missing.status == 404)
                #expect(missing.headers["allow"] == nil)
                #expect(missing.headers["content-type"] == "application/problem+json")
            }
        }
    }

    @Test func aJSONBodyWithADuplicateKeyIsRefusedAndMovesNoMoney() async throws {
        try await HTTPHarness.with { h in
            let (alice, tokens, _) = try await h.user("alice")
            let fund = h.baseURL.appendingPathComponent("v1/account/fund")
            let bodies = [
                #"{"amount":1,"amount":100000000}"#,
                #"{"amount":100000000,"amount":1}"#,
                #"{"amount":1,"\u0061mount":100000000}"#,  // the same key, escaped
                #"{"amount":1, "am\u006Funt" :100000000}"#,
            ]
            for body in bodies {
                let answer = try await Self.fetch(fund, method: "POST", token: tokens.accessToken, body: Data(body.utf8))
                #expect(answer.status == 400, "\(body)")
                #expect(answer.headers["content-type"] == "application/problem+json")
                #expect(Self.json(answer.body)["code"] as? String == "duplicate_key", "\(body)")
                #expect((Self.json(answer.body)["detail"] as? String)?.contains("\"amount\"") == true)
            }
            #expect(try await alice.getAccount().ok.body.json.balance == 0)
            // Nested: a duplicate inside an array element is refused too, naming where it is.
            let nested = try await Self.fetch(
                h.baseURL.appendingPathComponent("v1/notes/redeem"), method: "POST", token: tokens.accessToken,
                body: Data(#"{"chains":[],"x":[{"a":1},{"b":{"c":1,"c":2}}]}"#.utf8))
            #expect(nested.status == 400)
            #expect(Self.json(nested.body)["code"] as? String == "duplicate_key")
            #expect((Self.json(nested.body)["detail"] as? String)?.contains("$.x[1].b") == true)
            // Too deep: refused by the check, which does not recurse.
            let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
            let tooDeep = try await Self.fetch(
                fund, method: "POST", token: tokens.accessToken, body: Data(#"{"amount":1,"x":\#(deep)}"#.utf8))
            #expect(tooDeep.status == 400)
            #expect(Self.json(tooDeep.body)["code"] as? String == "json_too_deep")
            // A well-formed body still goes through.
            let ok = try await Self.fetch(fund, method: "POST", token: tokens.accessToken, body: Data(#"{ "amount" : 5 }"#.utf8))
            #expect(ok.status == 200)
            #expect(try await alice.getAccount().ok.body.json.balance == 5)
        }
    }

    @Test(arguments: HTTPBackend.available)
    func outOfRangeQueryParametersAre400NotClamped(_ backend: HTTPBackend) async throws {
        try await HTTPHarness.with(backend) { h in
            let (alice, tokens, _) = try await h.user("alice")
            _ = try await alice.fundAccount(body: .json(.init(amount: 3))).ok
            let history = h.baseURL.appendingPathComponent("v1/account/history")
            for (query, parameter, range) in [
                ("limit=0", "limit", "from 1 to 200"), ("limit=201", "limit", "from 1 to 200"),
                ("limit=-5", "limit", "from 1 to 200"), ("before=0", "before", "at least 1"),
            ] {
                let answer = try await Self.fetch(URL(string: "\(history.absoluteString)?\(query)")!, token: tokens.accessToken)
                #expect(answer.status == 400, "\(query)")
                #expect(answer.headers["content-type"] == "application/problem+json")
                let problem = Self.json(answer.body)
                #expect(problem["code"] as? String == "invalid_parameter")
                #expect(problem["field"] as? String == parameter)
                #expect((problem["detail"] as? String)?.contains(range) == true, "\(problem)")
            }
            // The bounds themselves are fine.
            #expect(try await alice.getHistory(query: .init(limit: 1)).ok.body.json.entries.count == 1)
            #expect(try await alice.getHistory(query: .init(limit: 200)).ok.body.json.entries.count == 1)

            let adminEmail = "root-\(UUID().uuidString.prefix(6))@example.com"
            _ = try await h.issuer.register(email: adminEmail, password: "admin password 123", role: "admin")
            let admin = h.client(
                token: try await h.client().login(body: .json(.init(email: adminEmail, password: "admin password 123"))).ok.body
                    .json.accessToken)
            guard case .default(400, let problem) = try await admin.getAuditLog(query: .init(limit: 1_001)) else {
                Issue.record("audit limit 1001 was not refused")
                return
            }
            #expect(try problem.body.applicationProblemJson.field == "limit")
            #expect(try problem.body.applicationProblemJson.detail?.contains("from 1 to 1000") == true)
            guard case .default(400, _) = try await admin.getAuditLog(query: .init(limit: 0)) else {
                Issue.record("audit limit 0 was not refused")
                return
            }
            _ = try await admin.getAuditLog(query: .init(limit: 1_000)).ok
        }
    }

    /// Bootstraps swift-metrics once for the whole test process, with a registry this suite
    /// reads (swift-metrics allows one bootstrap per process).
    static let processMetrics: IssuerMetrics = {
        let metrics = IssuerMetrics()
        metrics.bootstrapSwiftMetrics()
        return metrics
    }()

    @Test func metricsLabelClientErrorsByTheirStatus() async throws {
        try await HTTPHarness.with(metrics: Self.processMetrics) { h in
            let (_, tokens, _) = try await h.user("alice")
            let account = h.baseURL.appendingPathComponent("v1/account")
            #expect(try await Self.fetch(account).status == 401)  // refused in the handler
            // Refused by the auth middleware.
            #expect(try await Self.fetch(account, token: tokens.accessToken + "x").status == 401)
            #expect(try await Self.fetch(h.baseURL.appendingPathComponent("v1/nowhere")).status == 404)
            #expect(
                try await Self.fetch(h.baseURL.appendingPathComponent("v1/auth/login"), method: "POST", body: Data("{".utf8))
                    .status == 400)
            #expect(try await Self.fetch(account, method: "DELETE").status == 405)

            let expected = [
                #"http_route="/v1/account",http_request_method="GET",http_response_status_code="401""#,
                #"http_route="NotFound",http_request_method="GET",http_response_status_code="404""#,
                #"http_route="/v1/auth/login",http_request_method="POST",http_response_status_code="400""#,
                #"http_route="/v1/account",http_request_method="DELETE",http_response_status_code="405""#,
            ]
            // Requests are counted once their answer is written; wait for the last of them (60 s
            // bounds liveness on a loaded machine; it is not a speed check).
            var text = ""
            let admin = try await h.adminToken().token
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                text = String(
                    decoding: try await Self.fetch(h.baseURL.appendingPathComponent("metrics"), token: admin).body, as: UTF8.self)
                if expected.allSatisfy({ text.contains("hb_requests{\($0)}") }) || ContinuousClock.now > deadline { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            for labels in expected { #expect(text.contains("hb_requests{\(labels)}"), "\(labels) missing from:\n\(text)") }
            // (Other suites' servers count into the same process-wide registry: look at these routes only.)
            let fiveHundreds = text.split(separator: "\n").filter { line in
                line.contains(#"http_response_status_code="500""#)
                    && [#"http_route="/v1/account""#, #"http_route="NotFound""#, #"http_route="/v1/auth/login""#].contains {
                        line.contains($0)
                    }
            }
            #expect(fiveHundreds.isEmpty, "client errors counted as 500: \(fiveHundreds)")
        }
    }
}
