import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization

/// A transport to the issuer whose network a test turns off and on: while cut, every request
/// fails before it leaves (as with no network), so the client reports the issuer unreachable
/// and nothing reaches the server.
public final class CuttableTransport: ClientTransport, Sendable {
    private let base = URLSessionTransport()
    private let cut = Mutex(false)

    public init() {}

    /// Whether the network is off.
    public var isCut: Bool {
        get { cut.withLock { $0 } }
        set { cut.withLock { $0 = newValue } }
    }

    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if isCut { throw URLError(.notConnectedToInternet) }
        return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}
