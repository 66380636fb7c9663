import Foundation
import OfflineNotes
import WalletCore
import WalletSync

/// An account on a real server, registered and logged in, with a wallet that trusts the
/// server's issuer and whose key is registered to the account (proof of possession): what a
/// person has after setting up the app. Test support only.
public struct ServerAccount: Sendable {
    public let client: IssuerClient
    public let wallet: Wallet
    public let email: String
    public let accessToken: String

    /// Registers `email` (default: NAME-<random>@example.com) on the server at `server`, logs
    /// in, creates a wallet in `walletDirectory` and registers its key — through `keyServer`
    /// when given (another server process on the same database), with the same login.
    public static func register(
        _ name: String, on server: URL, walletDirectory: String, email: String? = nil, password: String = "correct horse battery",
        keyServer: URL? = nil
    ) async throws -> ServerAccount {
        let email = email ?? "\(name)-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        let client = IssuerClient(serverURL: server)
        try await client.register(email: email, password: password)
        let tokens = try await client.login(email: email, password: password)
        let wallet = try Wallet.create(directory: walletDirectory, keyCost: .testing)
        try await client.installTrust(into: wallet)
        let keyClient = keyServer.map { IssuerClient(serverURL: $0) } ?? client
        keyClient.useAccessToken(tokens.accessToken)
        try await keyClient.registerKey(of: wallet)
        return ServerAccount(client: client, wallet: wallet, email: email, accessToken: tokens.accessToken)
    }
}

extension Wallet {
    /// What a tampered phone does: signs a second transfer of `note`'s held state, which this
    /// wallet already spent, outside the wallet (the wallet itself refuses to), paying `amount`
    /// to `payee` for the request `nonce`, the rest back to this wallet's key. The payee's
    /// `receive` decides (a wallet that saw the first spend refuses it).
    public func signAgain(
        _ note: Chain, to payee: PublicKeyBytes, amount: UInt64, nonce: Nonce, now: Timestamp
    ) throws -> PaymentBundle {
        guard let held = note.heldOutput, held.amount >= amount else {
            throw WalletTestSupportError("the note holds \(note.heldOutput?.amount ?? 0), less than \(amount)")
        }
        var outputs = [TransferOutput(owner: payee, amount: amount)]
        if held.amount > amount { outputs.append(TransferOutput(owner: publicKey, amount: held.amount - amount)) }
        let transfer = try Transfer.sign(
            input: note.heldRef, outputs: outputs, nonce: nonce, createdAt: now, signer: identity.signer)
        return try PaymentBundle(chains: [note.appending(transfer, holding: 0)])
    }

    /// `signAgain` for a fresh request of `payee`: returns the request and the payment's bytes.
    public func signAgain(
        _ note: Chain, to payee: Wallet, amount: UInt64, now: Timestamp
    ) throws
        -> (request: PaymentRequest, bundle: [UInt8])
    {
        let request = try payee.createRequest(amount: amount)
        return (request, try signAgain(note, to: payee.publicKey, amount: amount, nonce: request.nonce, now: now).encoded)
    }
}

/// A test-support helper was used in a way it cannot serve; the message says how.
public struct WalletTestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
