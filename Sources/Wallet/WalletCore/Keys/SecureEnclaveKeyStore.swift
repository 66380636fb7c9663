#if canImport(Security) && canImport(CryptoKit) && !os(Linux)
import CryptoKit
import Foundation
import OfflineNotes
import Security

/// iPhone adapter: the signing key lives in the Secure Enclave; the Keychain keeps only its
/// opaque handle. Thin on purpose — the logic it serves is tested on Linux with `FileKeyStore`.
/// Such a key cannot be exported, so backups from it carry no key (`exportableKey == nil`).
public struct SecureEnclaveKeyStore: KeyStore {
    public let service: String
    public let account: String

    public init(service: String = "offline-wallet", account: String = "signing-key") {
        self.service = service
        self.account = account
    }

    public func create() throws(WalletError) -> WalletIdentity {
        let key: SecureEnclave.P256.Signing.PrivateKey
        do { key = try SecureEnclave.P256.Signing.PrivateKey() } catch {
            throw .storage("Secure Enclave key creation failed: \(error)")
        }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: key.dataRepresentation,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else {
            if status == errSecDuplicateItem { throw .walletExists(service) }
            throw .storage("Keychain error \(status)")
        }
        return WalletIdentity(signer: SecureEnclaveSigner(key: key), exportableKey: nil)
    }

    /// Secure Enclave keys cannot be imported; a restored wallet gets a new key and has its
    /// notes refreshed to it online.
    public func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity { try create() }

    public func load() throws(WalletError) -> WalletIdentity {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]
        var item: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, let data = item as? Data else {
            throw .walletMissing(service)
        }
        do {
            let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data)
            return WalletIdentity(signer: SecureEnclaveSigner(key: key), exportableKey: nil)
        } catch {
            throw .corruptFile("Secure Enclave key handle is invalid")
        }
    }
}

struct SecureEnclaveSigner: MessageSigner, @unchecked Sendable {
    let key: SecureEnclave.P256.Signing.PrivateKey
    var publicKey: PublicKeyBytes { PublicKeyBytes(key.publicKey) }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try key.signature(for: message).rawRepresentation)
    }
}
#endif
