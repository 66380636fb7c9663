import Foundation
import WalletCore
import WalletFlows
import WalletTestSupport

extension LoopbackIssuer {
    /// A wallet logged in to a new account funded with `funds`, its wallet kept in a directory
    /// of its own (not the harness's, which is removed when `with` returns): for tests that
    /// go on using the session once the server has stopped (the issuer is then unreachable).
    /// The caller removes `directory`.
    func loggedInOutliving(_ name: String, funds: UInt64 = 0) async throws -> (session: WalletSession, directory: String) {
        let directory = NSTemporaryDirectory() + "\(name)-" + UUID().uuidString
        let wallet = try Wallet.create(directory: directory, keyCost: .testing)
        let store = MemoryFlowStore()
        let (session, _) = try await WalletSession.logIn(
            wallet: wallet, server: baseURL.absoluteString, email: "\(name)-\(UUID().uuidString.prefix(6))@app.test",
            password: "correct horse battery", register: true, credentials: store, flowState: store)
        if funds > 0 { try await session.client.fund(funds) }
        return (session, directory)
    }
}
