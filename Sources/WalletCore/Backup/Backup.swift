import Foundation
import GRDB
import OfflineNotes

/// Encrypted wallet backups (`docs/protocol.md` §8).
///
/// File: a `PassphraseBox` with magic `OWB1` (scrypt + AES-256-GCM, header authenticated).
/// Plaintext: version(1)=1 ‖ key flag(1) ‖ [32-byte key] ‖ a consistent SQLite snapshot of the
/// wallet database (`VACUUM INTO`), so history, pending payments and spend records survive.
extension Wallet {
    static let backupMagic = Array("OWB1".utf8)

    /// Writes an encrypted snapshot of the whole wallet.
    public func exportBackup(passphrase: String, cost: PassphraseBox.Cost = .interactive) throws(WalletError) -> [UInt8] {
        let snapshotPath = databasePath + ".backup-\(Hex.encode(env.randomBytes(8)))"
        defer { try? FileManager.default.removeItem(atPath: snapshotPath) }
        do {
            try db.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [snapshotPath])
            }
        } catch {
            throw .storage("snapshot failed: \(error)")
        }
        guard let snapshot = FileManager.default.contents(atPath: snapshotPath) else {
            throw .storage("snapshot missing")
        }
        var plain: [UInt8] = [1]
        if let key = identity.exportableKey {
            plain += [1] + key
        } else {
            plain += [0]
        }
        plain += Array(snapshot)
        do {
            return try PassphraseBox.seal(plain, magic: Self.backupMagic, passphrase: passphrase, cost: cost, randomBytes: env.randomBytes)
        } catch {
            throw .storage("encryption failed: \(error)")
        }
    }

    /// Restores a backup into a new wallet directory. Every note that could be spent is marked
    /// "needs online check": the backup may predate payments made since, and spending such a
    /// note again would be a double spend (DESIGN §2.4).
    public static func restore(
        _ backup: [UInt8], passphrase: String, into directory: String, keyPassphrase: String? = nil,
        keyCost: PassphraseBox.Cost = .interactive, environment: WalletEnvironment = .live
    ) throws(WalletError) -> Wallet {
        let plain = try PassphraseBox.open(backup, magic: backupMagic, passphrase: passphrase)
        guard plain.count >= 2, plain[0] == 1 else { throw .corruptFile("unsupported backup version") }
        let key: [UInt8]?
        let snapshot: ArraySlice<UInt8>
        switch plain[1] {
        case 0:
            key = nil
            snapshot = plain[2...]
        case 1 where plain.count >= 34:
            key = Array(plain[2..<34])
            snapshot = plain[34...]
        default:
            throw .corruptFile("backup key section")
        }
        guard let key else {
            throw .corruptFile("backup carries no key (hardware-bound); restore it on the app with online refresh")
        }
        try makeDirectory(directory)
        let dbPath = (directory as NSString).appendingPathComponent(databaseFileName)
        guard !FileManager.default.fileExists(atPath: dbPath) else { throw .walletExists(directory) }
        let store = FileKeyStore(
            path: (directory as NSString).appendingPathComponent(keyFileName), passphrase: keyPassphrase, cost: keyCost)
        let identity = try store.importKey(key)
        try FileKeyStore.writeNew(path: dbPath, contents: Array(snapshot))
        let wallet = try Wallet(identity: identity, databasePath: dbPath, environment: environment)
        let now = environment.now()
        try wallet.write { db in
            try db.execute(
                sql: """
                    UPDATE note_state SET needs_online_check = 1, updated_at = ?
                    WHERE status IN ('available','received','reserved')
                    """,
                arguments: [sqlTime(now)])
        }
        return wallet
    }
}
