import Foundation
import HTTPTypes
import Hummingbird
import IssuerCore
import NIOCore
import OpenAPIRuntime

/// Who is calling, set by `AuthMiddleware` for the generated handlers (which see no context).
public enum RequestAuth {
    @TaskLocal public static var claims: AccessTokens.Claims?
    @TaskLocal public static var clientAddress: String = "unknown"
}

/// The request context: Hummingbird's basic one plus the peer address for rate limits.
public struct IssuerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// An API error with its HTTP status and problem+json body (RFC 9457).
public struct HTTPProblem: Error, Sendable {
    public let status: HTTPResponse.Status
    public var code: String
    public let detail: String
    public var field: String?
    public var retryAfter: Int64?
    /// Methods the path serves, sent as `Allow` with 405 answers (RFC 9110 §15.5.6).
    public var allow: [HTTPRequest.Method]?
    /// More header fields for the answer (a deprecated route's `Deprecation` and `Link`).
    public var headers = HTTPFields()

    public init(
        _ status: HTTPResponse.Status, code: String, detail: String, field: String? = nil, retryAfter: Int64? = nil,
        allow: [HTTPRequest.Method]? = nil
    ) {
        self.status = status
        self.code = code
        self.detail = detail
        self.field = field
        self.retryAfter = retryAfter
        self.allow = allow
    }

    public static let unauthorized = HTTPProblem(
        .unauthorized, code: "unauthorized", detail: "Log in: send a valid bearer access token.")
    public static let forbidden = HTTPProblem(.forbidden, code: "forbidden", detail: "This needs the admin role.")

    /// Seconds a client is told to wait (Retry-After) before repeating a request the database
    /// could not serve.
    public static let storageRetryAfter: Int64 = 2

    /// Maps issuer refusals to HTTP semantics.
    public init(_ error: IssuerError) {
        let status: HTTPResponse.Status
        var field: String?
        var retryAfter: Int64?
        switch error {
        case .invalidField(let f, _):
            status = .badRequest
            field = f
        case .invalidChain: status = .badRequest
        case .emailTaken, .emailLookAlike, .walletKeyTaken, .idempotencyConflict: status = .conflict
        case .badCredentials, .sessionEnded: status = .unauthorized
        case .accountNotFound, .withdrawalNotFound, .depositNotFound: status = .notFound
        case .depositNotUnclaimed, .noSurplus, .surplusConflict: status = .conflict
        case .accountFrozen, .accountFrozenByOperator, .accountNotFreezable, .fundingDisabled, .notOwner: status = .forbidden
        case .insufficientFunds, .holdingLimitExceeded, .amountOverflow, .walletKeyNotRegistered, .badChallenge:
            status = .unprocessableContent
        case .escrowMismatch: status = .serviceUnavailable
        case .storage:
            // The database failed or is between primaries: a retry soon may succeed.
            status = .serviceUnavailable
            retryAfter = Self.storageRetryAfter
        }
        self.init(status, code: error.code, detail: error.description, field: field, retryAfter: retryAfter)
    }

    func response() -> Response {
        var body: [String: Any] = [
            "type": "https://offline-wallet.example/problems/\(code)", "title": status.reasonPhrase,
            "status": status.code, "code": code, "detail": detail,
        ]
        if let field { body["field"] = field }
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allow { headers[.allow] = allow.map(\.rawValue).joined(separator: ", ") }
        headers.append(contentsOf: self.headers)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Turns every error into problem+json. Unexpected ones are logged by operation and cause
/// only (never the request, whose headers carry bearer tokens) and hidden from the client.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            if let problem = Self.problem(in: error) { return problem.response() }
            if let http = error as? HTTPError {
                return HTTPProblem(http.status, code: "http_\(http.status.code)", detail: http.body ?? http.status.reasonPhrase)
                    .response()
            }
            if let server = error as? ServerError {
                context.logger.error(
                    "unhandled error in \(server.operationID): \(server.causeDescription) (\(type(of: server.underlyingError)))")
            } else {
                context.logger.error("unhandled error: \(type(of: error))")
            }
            return HTTPProblem(.internalServerError, code: "internal", detail: "The server failed; it was logged.").response()
        }
    }

    static func problem(in error: any Error) -> HTTPProblem? {
        if let p = error as? HTTPProblem { return p }
        if let e = error as? IssuerError { return HTTPProblem(e) }
        guard let server = error as? ServerError else { return nil }
        if let p = server.underlyingError as? HTTPProblem { return p }
        if let e = server.underlyingError as? IssuerError { return HTTPProblem(e) }
        // The runtime's own errors and decoding errors mean the request did not match the
        // OpenAPI document (missing header, bad JSON, wrong types): the client's fault.
        let kind = String(reflecting: type(of: server.underlyingError))
        if kind.hasPrefix("OpenAPIRuntime.") || server.underlyingError is DecodingError {
            return HTTPProblem(.badRequest, code: "invalid_request", detail: server.causeDescription)
        }
        return nil
    }
}

/// Reads the bearer token (if any) and the peer address into task-locals for the handlers.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = IssuerRequestContext
    let tokens: AccessTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        var claims: AccessTokens.Claims?
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            claims = tokens.verify(String(header.dropFirst(7)))
            guard claims != nil else { throw HTTPProblem.unauthorized }
        }
        let address = context.remoteAddress?.ipAddress ?? "unknown"
        return try await RequestAuth.$claims.withValue(claims) {
            try await RequestAuth.$clientAddress.withValue(address) { try await next(request, context) }
        }
    }
}

/// Rejects bodies above `maxBytes` (413) before any handler reads them.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBytes {
            throw HTTPProblem(
                .contentTooLarge, code: "body_too_large", detail: "Request bodies are limited to \(maxBytes) bytes.")
        }
        var request = request
        do {
            let buffer = try await request.body.collect(upTo: maxBytes)
            request.body = .init(buffer: buffer)
        } catch {
            throw HTTPProblem(
                .contentTooLarge, code: "body_too_large", detail: "Request bodies are limited to \(maxBytes) bytes.")
        }
        return try await next(request, context)
    }
}

/// Refuses JSON bodies that hold a key twice in one object, nest deeper than
/// `StrictJSON.defaultMaxDepth`, or are not JSON, before the generated decoder (which would
/// silently keep one of two equal keys) sees them. Runs after `BodyLimitMiddleware`, so the
/// body is already in memory and bounded.
struct StrictJSONMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        guard Self.isJSON(request.headers[.contentType]) else { return try await next(request, context) }
        var request = request
        let buffer = try await request.body.collect(upTo: maxBytes)
        request.body = .init(buffer: buffer)
        guard buffer.readableBytes > 0 else { return try await next(request, context) }
        do {
            try StrictJSON.check(buffer.readableBytesView)
        } catch {
            throw Self.problem(error)
        }
        return try await next(request, context)
    }

    /// JSON media types, and no Content-Type at all (the generated decoder then assumes JSON).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return true }
        // What every client sends, answered by a byte comparison: Foundation's character sets
        // are slow on Linux, and every request passes here.
        if contentType.utf8.elementsEqual("application/json".utf8) { return true }
        let media =
            contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            ?? ""
        return media.isEmpty || media == "application/json" || media.hasSuffix("+json")
    }

    static func problem(_ failure: StrictJSON.Failure) -> HTTPProblem {
        switch failure {
        case .duplicateKey(let key, let path):
            let shown = key.count > 64 ? String(key.prefix(64)) + "…" : key
            return HTTPProblem(
                .badRequest, code: "duplicate_key",
                detail: "The JSON object at \(path) has the key \"\(shown)\" more than once; send each key once.")
        case .tooDeep(let limit):
            return HTTPProblem(
                .badRequest, code: "json_too_deep", detail: "The JSON body nests objects and arrays deeper than \(limit) levels.")
        case .invalid(let reason, let offset):
            return HTTPProblem(
                .badRequest, code: "invalid_json", detail: "The body is not valid JSON: \(reason) at byte \(offset).")
        }
    }
}

/// Per-IP limits on every write (and tighter on login), counted in the database so that
/// several processes share them. Per-account write limits are applied in the handlers.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = IssuerRequestContext
    let issuer: Issuer
    let writesPerMinutePerIP: Int
    let loginsPerMinutePerIP: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        let ip = context.remoteAddress?.ipAddress ?? "unknown"
        let isLogin = request.uri.path.hasPrefix("/v1/auth/")
        let bucket = isLogin ? "ip-auth:\(ip)" : "ip-write:\(ip)"
        if let retry = try await issuer.rateLimit(
            bucket: bucket, limit: isLogin ? loginsPerMinutePerIP : writesPerMinutePerIP, windowSeconds: 60)
        {
            throw HTTPProblem(
                .tooManyRequests, code: "rate_limited", detail: "Too many requests; retry in \(retry) s.", retryAfter: retry)
        }
        return try await next(request, context)
    }
}
