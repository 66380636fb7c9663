import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization

/// A transport to the issuer whose network a test turns off and on: while cut, every request
/// fails before it leaves (as with no network), so the client reports the issuer unreachable
/// and nothing reaches the server. Counts the requests that did go out.
public final class CuttableTransport: ClientTransport, Sendable {
    private let base = URLSessionTransport()
    private let state = Mutex<(cut: Bool, sent: Int)>((false, 0))

    public init() {}

    /// Whether the network is off.
    public var isCut: Bool {
        get { state.withLock { $0.cut } }
        set { state.withLock { $0.cut = newValue } }
    }

    /// Requests that went out to the server.
    public var sent: Int { state.withLock { $0.sent } }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let cut = state.withLock { s in
            if !s.cut { s.sent += 1 }
            return s.cut
        }
        if cut { throw URLError(.notConnectedToInternet) }
        return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}
