import CrashPoints
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
            return try PassphraseBox.seal(
                plain, magic: Self.backupMagic, passphrase: passphrase, cost: cost, randomBytes: env.randomBytes)
        } catch {
            throw .storage("encryption failed: \(error)")
        }
    }

    /// Restores a backup into a new wallet directory, under a new key. Every state the backup
    /// held is marked restored: never spent offline, exchanged online by the next sync for notes
    /// of the new key (docs/protocol.md §5.2 rule 5). The backup may predate payments the old
    /// device made since, and the old device may still spend; a new key means the two devices
    /// can never sign two transfers of one state with one key (docs/design.md §2.4).
    ///
    /// - Parameters:
    ///   - backup: the file `exportBackup` wrote.
    ///   - passphrase: the passphrase the backup was sealed with.
    ///   - directory: the new wallet's directory; it must not hold a wallet yet.
    ///   - keyPassphrase: seals the new key file; nil leaves it unsealed.
    ///   - keyCost: how hard `keyPassphrase` is stretched.
    ///   - keyStore: where the new key is created (the Secure Enclave or the Keychain on a
    ///     phone; it must not hold a key yet). Nil: a `FileKeyStore` at `directory/wallet.key`,
    ///     sealed with `keyPassphrase` at `keyCost` when one is given. With a key store,
    ///     `keyPassphrase` and `keyCost` do not apply.
    ///   - environment: the clock and randomness; `.live` except in tests.
    public static func restore(
        _ backup: [UInt8], passphrase: String, into directory: String, keyPassphrase: String? = nil,
        keyCost: PassphraseBox.Cost = .interactive, keyStore: (any KeyStore)? = nil,
        environment: WalletEnvironment = .live
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
        // The old key is not needed: restored states are never spent offline, only exchanged
        // online by the account (§5.2 rule 5), so hardware-bound backups restore too.
        let oldKey = key.flatMap { try? SoftwareSigner(rawRepresentation: $0).publicKey }
        try makeDirectory(directory)
        let dbPath = (directory as NSString).appendingPathComponent(databaseFileName)
        // A restore writes the database, then the key, then marks the states restored: a crash
        // in between left a database that is no wallet yet (old-key states not marked, or no
        // key). The marker file says so until the restore is done; a restore finding it starts
        // over — the key it made never signed anything — and `open` refuses the directory.
        let marker = (directory as NSString).appendingPathComponent(restoringMarkerName)
        if FileManager.default.fileExists(atPath: marker) {
            let key = keyStore == nil ? [(directory as NSString).appendingPathComponent(keyFileName)] : []
            for leftover in [dbPath, dbPath + "-wal", dbPath + "-shm"] + key { unlink(leftover) }
        } else {
            guard !FileManager.default.fileExists(atPath: dbPath) else { throw .walletExists(directory) }
            try FileKeyStore.writeNew(path: marker, contents: [])
        }
        try FileKeyStore.writeNew(path: dbPath, contents: Array(snapshot))
        CrashPoints.reach(.walletRestoreSnapshotWritten)
        let store = keyStore ?? fileKeyStore(in: directory, passphrase: keyPassphrase, cost: keyCost)
        // A new key, so the old device and this one never sign for the same key.
        let identity = try store.create()
        CrashPoints.reach(.walletRestoreKeyCreated)
        let wallet = try Wallet(identity: identity, databasePath: dbPath, environment: environment)
        let now = environment.now()
        try wallet.write { db in
            try db.execute(
                sql: """
                    UPDATE note_state SET needs_online_check = ?, updated_at = ?
                    WHERE status IN ('available','received','reserved')
                    """,
                arguments: [Wallet.restoredMark, sqlTime(now)])
            // Requests made under the old key: a payment for one would be owned by a key this
            // wallet no longer signs with. A payer who still sends one keeps it pending, and the
            // issuer pays the old key's account at expiry (§5.2 rule 4).
            try db.execute(sql: "DELETE FROM payment_request WHERE status = 'open'")
            if let oldKey { try Wallet.setSetting(db, "restored_from_key", oldKey.bytes) }
        }
        unlink(marker)
        CrashPoints.reach(.walletRestoreCommitted)
        return wallet
    }
}
