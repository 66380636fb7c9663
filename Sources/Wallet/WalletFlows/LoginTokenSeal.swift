import Crypto
import Foundation
import OfflineNotes
import WalletCore

/// Keeps the saved login (the issuer's refresh token) in `config.json` encrypted whenever the
/// wallet key file is (a passphrase-protected key).
///
/// The token is sealed with AES-256-GCM under a key derived by HKDF-SHA256 from the wallet's
/// private key, not with its own scrypt passphrase box. Why: the token rotates on every online
/// command, so a `PassphraseBox` would cost two more scrypt runs (open and re-seal, ~0.1 s and
/// 32 MiB each) on top of the one that already opens the key file, on every `status` and `sync`.
/// Deriving from the key costs nothing extra and protects the token exactly as well as the key
/// itself: whoever can decrypt the key file (knows the passphrase) can read the token, nobody
/// else can. HKDF with its own salt and the public key as info keeps this key separate from the
/// signing use of the scalar.
///
/// Without a passphrase the key file itself is stored unencrypted (mode 0600), so sealing the
/// token under it would protect nothing: the token stays plain, in a mode-0600 file.
public struct LoginTokenSeal: Sendable {
    let key: SendableKey<SymmetricKey>
    let associatedData: [UInt8]
    /// The key file is encrypted, so new tokens are saved sealed.
    public let sealsNewTokens: Bool

    static let label = Array("OW refresh token v1".utf8)
    static let encryptedKeyMagic = Array("OWK1".utf8)

    /// The seal for `wallet`, opened from `directory`; nil for keys that cannot be exported
    /// (hardware keys: the token stays plain).
    public init?(wallet: Wallet, directory: String) {
        guard let raw = wallet.identity.exportableKey else { return nil }
        let keyFile = FileManager.default.contents(atPath: directory + "/" + Wallet.keyFileName).map(Array.init) ?? []
        key = SendableKey(
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: raw), salt: Self.label, info: wallet.publicKey.bytes, outputByteCount: 32))
        associatedData = Self.label + wallet.publicKey.bytes
        sealsNewTokens = keyFile.starts(with: Self.encryptedKeyMagic)
    }

    /// base64(nonce ‖ ciphertext ‖ tag).
    public func seal(_ token: String) throws(FlowStoreError) -> String {
        guard let box = try? AES.GCM.seal(Array(token.utf8), using: key.value, authenticating: associatedData),
            let combined = box.combined
        else { throw .cannotSeal }
        return combined.base64EncodedString()
    }

    /// The token, or nil when it does not open under this wallet's key (altered, or another wallet's).
    public func open(_ sealed: String) -> String? {
        guard let data = Data(base64Encoded: sealed),
            let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key.value, authenticating: associatedData)
        else { return nil }
        return String(validating: Array(plain), as: UTF8.self)
    }
}
