#if canImport(Security) && canImport(CryptoKit) && !os(Linux)
import CryptoKit
import Foundation
import OfflineNotes
import Security

/// iPhone adapter: the signing key lives in the Secure Enclave; the Keychain keeps only its
/// opaque handle (a key blob only this device's Secure Enclave can use). Thin on purpose — the
/// logic it serves is tested on Linux through the same `KeyStore` seam with a simulated,
/// equally non-exportable store (`SimulatedEnclave` in WalletTestSupport). Such a key cannot be
/// exported, so backups from it carry no key (`exportableKey == nil`); a restore makes a new one.
///
/// **One key per wallet:** the handle's Keychain account names the wallet (the app passes the
/// wallet directory's name), so a restored wallet gets its own new key while the handle of the
/// wallet it replaces may still exist.
///
/// **Usable while the phone is locked:** the handle's item is
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` and the key is created with the same
/// protection and only `.privateKeyUsage` (no user presence): iOS launches the app in the
/// background for a sync while the phone may be locked, and the wallet must open and sign then.
/// Until the first unlock after a boot neither can be read (nor can the wallet database), and
/// neither ever leaves this device (not in iCloud or computer backups).
public struct SecureEnclaveKeyStore: KeyStore {
    public let service: String
    public let account: String

    /// - Parameters:
    ///   - account: names the wallet whose key this is (the app: the wallet directory's name).
    public init(service: String = "org.offlinewallet.app.signing-key", account: String) {
        self.service = service
        self.account = account
    }

    /// Whether this device has a Secure Enclave (false in the simulator and on Macs without one).
    public static var isAvailable: Bool { SecureEnclave.isAvailable }

    public func create() throws(WalletError) -> WalletIdentity {
        var accessError: Unmanaged<CFError>?
        guard
            let access = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, .privateKeyUsage, &accessError)
        else {
            let reason = accessError.map { "\($0.takeRetainedValue())" } ?? "unknown"
            throw .storage("Secure Enclave access control could not be made (\(reason))")
        }
        let key: SecureEnclave.P256.Signing.PrivateKey
        do {
            key = try SecureEnclave.P256.Signing.PrivateKey(
                compactRepresentable: true, accessControl: access, authenticationContext: nil)
        } catch {
            throw .storage("Secure Enclave key creation failed: \(error)")
        }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: key.dataRepresentation,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else {
            // The new enclave key is unreachable without its handle: nothing to clean up.
            if status == errSecDuplicateItem { throw .walletExists("\(service)/\(account)") }
            throw .storage("Keychain error \(status) saving the Secure Enclave key's handle")
        }
        return WalletIdentity(signer: SecureEnclaveSigner(key: SendableKey(key)), exportableKey: nil)
    }

    /// Secure Enclave keys cannot be imported; a restored wallet gets a new key and has its
    /// notes refreshed to it online.
    public func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity { try create() }

    /// Removes the key's handle (a replaced wallet's, once its directory is removed): without
    /// it the enclave key can never be used again. Missing is fine.
    public func delete() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        SecItemDelete(query as CFDictionary)
    }

    public func load() throws(WalletError) -> WalletIdentity {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecInteractionNotAllowed {
            throw .storage("the Keychain is locked until the phone is unlocked once after a restart; unlock it and try again")
        }
        guard status == errSecSuccess, let data = item as? Data else { throw .walletMissing("\(service)/\(account)") }
        do {
            let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data)
            return WalletIdentity(signer: SecureEnclaveSigner(key: SendableKey(key)), exportableKey: nil)
        } catch {
            throw .corruptFile("Secure Enclave key handle is invalid (\(error)); restore the wallet from a backup")
        }
    }
}

/// A Secure Enclave key is an immutable handle: signing sends the message to the enclave and
/// returns a new signature, and nothing in the handle changes after it is made.
extension SecureEnclave.P256.Signing.PrivateKey: ImmutableKey {}

struct SecureEnclaveSigner: MessageSigner {
    let key: SendableKey<SecureEnclave.P256.Signing.PrivateKey>
    var publicKey: PublicKeyBytes { PublicKeyBytes(key.value.publicKey) }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try key.value.signature(for: message).rawRepresentation)
    }
}
#endif
