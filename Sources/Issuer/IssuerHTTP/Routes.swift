import HTTPTypes
import Hummingbird
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime

/// The OpenAPI document the server's routes were generated from, byte for byte (embedded at
/// build time from Sources/Protocol/WalletAPI/openapi.yaml), served as `GET /openapi.yaml`.
public enum OpenAPIDocument {
    public static let bytes: [UInt8] = PackageResources.openapi_yaml
    /// RFC 9512.
    public static let mediaType = "application/yaml"
}

/// Collects the generated handlers instead of installing them, so that the application can
/// first learn every path and the methods it serves (for 405 answers) and then install them
/// behind its middlewares.
final class RouteTable: ServerTransport {
    typealias Handler = @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)

    private(set) var handlers: [(handler: Handler, method: HTTPRequest.Method, path: String)] = []
    /// Paths in registration order with the methods each serves.
    private(set) var paths: [(path: String, methods: [HTTPRequest.Method])] = []

    func register(_ handler: @escaping Handler, method: HTTPRequest.Method, path: String) {
        handlers.append((handler, method, path))
        add(method, path)
        if let old = DeprecatedRoutes.oldPath(of: path) {
            handlers.append((DeprecatedRoutes.serving(handler), method, old))
            add(method, old)
        }
    }

    /// Records a route the application installs itself (not from the OpenAPI handlers).
    func add(_ method: HTTPRequest.Method, _ path: String) {
        if let i = paths.firstIndex(where: { $0.path == path }) {
            paths[i].methods.append(method)
        } else {
            paths.append((path, [method]))
        }
    }

    /// Every method a request line can carry that we route on (HTTPTypes' registered set).
    static let allMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .options, .trace, .patch]

    /// Installs, on each known path, a responder for every method the path does not serve that
    /// answers 405 with `Allow` (RFC 9110 §15.5.6); unknown paths stay 404. HEAD is one of
    /// them: Hummingbird's generated HEAD routes drop the response body and with it the
    /// metrics middleware's accounting, and no client of this API needs HEAD.
    func installMethodNotAllowed<Context: RequestContext>(on router: Router<Context>) {
        for (path, allowed) in paths {
            for method in Self.allMethods where !allowed.contains(method) {
                let problem = Self.methodNotAllowed(path, method, allowed: allowed)
                router.on(RouterPath(path), method: method) { _, _ -> Response in throw problem }
            }
        }
        // Any other method (QUERY, PROPFIND, an extension token) has no route to fall on, and
        // the router alone would answer 404 for a path the API serves; this answers 405.
        router.middlewares.add(OtherMethodMiddleware<Context>(paths: paths))
    }

    static func methodNotAllowed(_ path: String, _ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> HTTPProblem {
        HTTPProblem(
            .methodNotAllowed, code: "method_not_allowed",
            detail: "\(path) does not answer \(method.rawValue); it answers \(allowed.map(\.rawValue).joined(separator: ", ")).",
            allow: allowed)
    }

    /// Installs the collected OpenAPI handlers on `router`, behind the middlewares added so far.
    func installHandlers<Context: RequestContext>(on router: Router<Context>) {
        for (handler, method, path) in handlers {
            router.register(handler, method: method, path: path)
        }
    }
}

/// 405 with `Allow` for a request whose method is none of `RouteTable.allMethods` on a path the
/// API serves; `{name}` segments of a path template match any one segment. Requests with the
/// usual methods pass untouched (their 405 routes are installed on the router).
struct OtherMethodMiddleware<Context: RequestContext>: RouterMiddleware {
    let templates: [(segments: [Substring?], path: String, methods: [HTTPRequest.Method])]

    init(paths: [(path: String, methods: [HTTPRequest.Method])]) {
        templates = paths.map { entry in
            let segments = entry.path.split(separator: "/").map {
                ($0.hasPrefix("{") && $0.hasSuffix("}")) || $0.hasPrefix(":") ? nil : $0
            }
            return (segments, entry.path, entry.methods)
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        guard !RouteTable.allMethods.contains(request.method) else { return try await next(request, context) }
        let asked = request.uri.path.split(separator: "/")
        for t in templates where t.segments.count == asked.count && zip(t.segments, asked).allSatisfy({ $0 == nil || $0 == $1 }) {
            throw RouteTable.methodNotAllowed(t.path, request.method, allowed: t.methods)
        }
        return try await next(request, context)
    }
}
