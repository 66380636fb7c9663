import HTTPTypes
import OpenAPIRuntime

/// The escrow routes under their earlier spelling (`/v1/chain/…`, `/v1/admin/chain/…`), served
/// for one more release so that deployed wallets and operator scripts keep working while they
/// move to `/v1/escrow/…` and `/v1/admin/escrow/…` (docs/server.md, "Renamed options, routes
/// and codes").
///
/// An old path runs the same handler as its successor, so both always answer alike, with three
/// differences a client can rely on: every answer carries `Deprecation: true` (RFC 9745) and a
/// `Link` to the successor path with `rel="successor-version"`, and problems keep the codes the
/// old routes answered (`chain_not_configured`, `chain_unavailable`).
enum DeprecatedRoutes {
    /// Each current path prefix and the prefix it replaced.
    static let renamedPrefixes: [(current: String, old: String)] = [
        ("/v1/escrow/", "/v1/chain/"), ("/v1/admin/escrow/", "/v1/admin/chain/"),
    ]

    /// Problem codes of the current routes and the codes their old paths keep answering.
    static let oldCodes: [String: String] = [
        "escrow_not_configured": "chain_not_configured", "escrow_unavailable": "chain_unavailable",
    ]

    /// The old spelling of `path`, when it has one.
    static func oldPath(of path: String) -> String? {
        for (current, old) in renamedPrefixes where path.hasPrefix(current) {
            return old + path.dropFirst(current.count)
        }
        return nil
    }

    /// `handler` as its old path answers: the deprecation headers on every answer, the old
    /// problem codes on refusals. Errors that are no problem (the server's own failures) pass
    /// through as they are.
    static func serving(_ handler: @escaping RouteTable.Handler) -> RouteTable.Handler {
        { request, body, metadata in
            let headers = deprecationHeaders(successor: successor(of: request.path ?? ""))
            do {
                var (response, responseBody) = try await handler(request, body, metadata)
                response.headerFields.append(contentsOf: headers)
                return (response, responseBody)
            } catch {
                guard var problem = ProblemMiddleware<IssuerRequestContext>.problem(in: error) else { throw error }
                if let old = oldCodes[problem.code] { problem.code = old }
                problem.headers.append(contentsOf: headers)
                throw problem
            }
        }
    }

    /// The current spelling of a request's old path (its query dropped).
    static func successor(of requestPath: String) -> String {
        let path = requestPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        for (current, old) in renamedPrefixes where path.hasPrefix(old) {
            return current + path.dropFirst(old.count)
        }
        return path
    }

    static func deprecationHeaders(successor: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[fieldName("Deprecation")] = "true"
        fields[fieldName("Link")] = "<\(successor)>; rel=\"successor-version\""
        return fields
    }

    /// RFC 9745's and RFC 8288's headers, which `HTTPField.Name` has no constants for.
    private static func fieldName(_ name: String) -> HTTPField.Name {
        guard let field = HTTPField.Name(name) else { preconditionFailure("\(name) is not a valid header field name") }
        return field
    }
}
