import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Adds `Authorization: Bearer <token>` to every request of a generated `Client`.
public struct BearerToken: ClientMiddleware {
    let token: @Sendable () async -> String?

    public init(_ token: @escaping @Sendable () async -> String?) { self.token = token }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = await token() { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}
