#if canImport(Security) && canImport(CryptoKit)
import CryptoKit
import Foundation
import OfflineNotes
import Security
import WalletCore

/// The wallet's signing key where the phone has no Secure Enclave (the simulator): a software
/// P-256 key (the 32-byte scalar `SoftwareSigner` signs with) kept as one Keychain generic
/// password per wallet.
///
/// **One item per wallet:** the account names the wallet (the app passes the wallet directory's
/// name), so a restored wallet's new key does not collide with the item of the wallet it replaces.
///
/// **Accessible after the first unlock, this device only:** iOS launches the app in the
/// background for a sync while the phone may be locked, and the wallet must open then; the key
/// never moves to another phone through an iCloud or computer backup (two phones holding one
/// wallet's notes would double spend). The app's own encrypted backup carries the key, as it
/// carries a key file's (`exportableKey`): the key is software, so nothing is gained by hiding it
/// from the person's own backup.
struct KeychainKeyStore: KeyStore {
    let service: String
    let account: String

    /// - Parameters:
    ///   - account: names the wallet whose key this is (the app: the wallet directory's name).
    init(service: String = "org.offlinewallet.app.wallet-key", account: String) {
        self.service = service
        self.account = account
    }

    private var itemQuery: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    func create() throws(WalletError) -> WalletIdentity {
        try importKey(Array(P256.Signing.PrivateKey().rawRepresentation))
    }

    /// Keeps `raw` (a restored backup's key, or a new one) as this wallet's key; refuses when
    /// the wallet already has one.
    func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity {
        let signer: SoftwareSigner
        do { signer = try SoftwareSigner(rawRepresentation: raw) } catch { throw .corruptFile("invalid private key") }
        var query = itemQuery
        query[kSecValueData as String] = Data(raw)
        query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else {
            if status == errSecDuplicateItem { throw .walletExists("\(service)/\(account)") }
            throw .storage("the Keychain could not save the wallet key (\(Self.reason(status))); free some space and try again")
        }
        return WalletIdentity(signer: signer, exportableKey: raw)
    }

    func load() throws(WalletError) -> WalletIdentity {
        var query = itemQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        switch status {
        case errSecSuccess: break
        case errSecItemNotFound: throw .walletMissing("\(service)/\(account)")
        case errSecInteractionNotAllowed:
            throw .storage("the Keychain is locked until the phone is unlocked once after a restart; unlock it and try again")
        default: throw .storage("the Keychain could not read the wallet key (\(Self.reason(status)))")
        }
        guard let data = item as? Data else { throw .corruptFile("the Keychain's wallet key is not data") }
        let raw = Array(data)
        do {
            return WalletIdentity(signer: try SoftwareSigner(rawRepresentation: raw), exportableKey: raw)
        } catch {
            throw .corruptFile("the Keychain holds an invalid wallet key; restore the wallet from a backup")
        }
    }

    /// Removes the key (a replaced wallet's, once its directory is removed). Missing is fine.
    func delete() {
        SecItemDelete(itemQuery as CFDictionary)
    }

    private static func reason(_ status: OSStatus) -> String {
        SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "status \(status)"
    }
}
#endif
