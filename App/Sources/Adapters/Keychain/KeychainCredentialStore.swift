#if canImport(Security)
import Foundation
import Security
import WalletFlows

/// Why the Keychain refused to read or write the saved login.
struct KeychainError: Error, CustomStringConvertible {
    let operation: String
    let status: OSStatus

    var description: String {
        let reason = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "status \(status)"
        return
            "The Keychain could not \(operation) the saved login (\(reason)). Unlock the phone and try again; if it persists, log in again."
    }
}

/// The saved login (issuer, account, rotating refresh token) as one Keychain item: a generic
/// password holding the login as JSON.
///
/// Accessible after the first unlock, on this device only: the background sync
/// (BGAppRefreshTask) resumes the login while the phone may be locked, and a token must never
/// move to another phone through a backup (it is rotated on every resume; two phones holding
/// one would log each other out). A save is durable when `SecItemUpdate`/`SecItemAdd` return,
/// which `CredentialStore` requires: the flows persist a rotated token before using it.
struct KeychainCredentialStore: CredentialStore {
    let service: String
    let account: String

    init(service: String = "org.offlinewallet.app.login", account: String = "issuer") {
        self.service = service
        self.account = account
    }

    /// The item's stored form (StoredLogin itself is not Codable: the flows keep it free of formats).
    private struct Stored: Codable {
        var server: String?
        var email: String?
        var accountId: Int64?
        var refreshToken: String?
    }

    private var itemQuery: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    func loadLogin() throws -> StoredLogin {
        var query = itemQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return StoredLogin() }
        guard status == errSecSuccess else { throw KeychainError(operation: "read", status: status) }
        guard let data = item as? Data else { throw KeychainError(operation: "read", status: errSecDecode) }
        let stored = try JSONDecoder().decode(Stored.self, from: data)
        return StoredLogin(
            server: stored.server, email: stored.email, accountId: stored.accountId, refreshToken: stored.refreshToken)
    }

    func saveLogin(_ login: StoredLogin) throws {
        let stored = Stored(
            server: login.server, email: login.email, accountId: login.accountId, refreshToken: login.refreshToken)
        let data = try JSONEncoder().encode(stored)
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(itemQuery as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let add = itemQuery.merging(attributes) { _, new in new }
            status = SecItemAdd(add as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(operation: "save", status: status) }
    }
}
#endif
