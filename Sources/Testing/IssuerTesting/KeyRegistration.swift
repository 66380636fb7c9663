import Foundation
import IssuerCore
import OfflineNotes
import OpenAPIRuntime
import TestSupport
import WalletAPI

extension Issuer {
    /// Registers `signer`'s key to `account` the way a wallet does: answers the key challenge
    /// with a signature (proof of possession).
    public func registerKey(account: Int64, signer: any MessageSigner) async throws {
        let challenge = keyChallenge(account: account)
        let message = KeyRegistration.message(challenge: challenge, account: account)
        try await registerWalletKey(
            account: account, key: signer.publicKey, challenge: challenge, signature: try signer.sign(message))
    }
}

extension Client {
    /// Registers `email` and logs in over the HTTP API; returns the tokens.
    public func registerAndLogIn(
        email: String, password: String = "correct horse battery"
    ) async throws -> Components.Schemas.Tokens {
        _ = try await register(body: .json(.init(email: email, password: password))).created
        return try await login(body: .json(.init(email: email, password: password))).ok.body.json
    }

    /// Registers `signer`'s key to the logged-in account over the HTTP API (challenge, then
    /// the signed answer: proof of possession).
    public func registerKey(of signer: any MessageSigner) async throws {
        let challenge = try await keyChallenge().ok.body.json
        guard let raw = Base64URL.decode(challenge.challenge) else {
            throw TestSupportError("the key challenge is not base64url: \(challenge.challenge)")
        }
        let message = KeyRegistration.message(challenge: raw, account: challenge.accountId)
        _ = try await registerWalletKey(
            body: .json(
                .init(
                    publicKey: Base64URL.encode(signer.publicKey.bytes), challenge: challenge.challenge,
                    signature: Base64URL.encode(try signer.sign(message))))
        ).noContent
    }
}
