import Foundation
import GRDB

/// How a wallet reaches its issuer: the URL and how an https server is trusted. Kept in the
/// wallet database, so a backup carries it and a restored wallet can log in without being
/// told the server again. (The issuer's authority key is pinned in the database already.)
public struct IssuerContact: Codable, Sendable, Equatable {
    /// The issuer's base URL.
    public var url: String
    /// The server key pin (`sha256/BASE64` of its SubjectPublicKeyInfo), when one is pinned.
    public var serverPin: String?
    /// The PEM of the certificate authority trusted for the server, when one is given.
    public var serverCA: String?

    public init(url: String, serverPin: String? = nil, serverCA: String? = nil) {
        self.url = url
        self.serverPin = serverPin
        self.serverCA = serverCA
    }
}

extension Wallet {
    static let issuerContactSetting = "issuer_contact"

    /// Saves how to reach the issuer (replacing what was saved); the next backup carries it.
    public func setIssuerContact(_ contact: IssuerContact) throws(WalletError) {
        let encoded: Data
        do { encoded = try JSONEncoder().encode(contact) } catch { throw .storage("cannot encode the issuer contact: \(error)") }
        try write { db in try Self.setSetting(db, Self.issuerContactSetting, Array(encoded)) }
    }

    /// How to reach the issuer, as last saved (or as the restored backup carried it); nil when
    /// never saved, as in wallets and backups made before the contact was kept.
    public func issuerContact() throws(WalletError) -> IssuerContact? {
        guard let bytes = try read({ db in try Self.setting(db, Self.issuerContactSetting) }) else { return nil }
        return try? JSONDecoder().decode(IssuerContact.self, from: Data(bytes))
    }
}
