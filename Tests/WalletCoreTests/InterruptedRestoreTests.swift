import Foundation
import OfflineNotes
import Testing
import WalletCore

/// A restore killed half-way (`scripts/crash-sweep` at `wallet.restore.snapshot-written` and
/// `wallet.restore.key-created`) leaves the backup's database, maybe a new key, and old-key
/// states not yet marked restored. Restoring again into it must start over, and nothing may
/// open it and show the old key's notes as spendable under the new key.
@Suite struct InterruptedRestoreTests {
    /// What a restore leaves while it runs (the engine's marker; see `Wallet.restore`).
    static let marker = "restore-unfinished"

    /// A key store that fails to create the key: the restore stops after writing the database,
    /// as a crash there would.
    struct FailingKeyStore: KeyStore {
        func create() throws(WalletError) -> WalletIdentity { throw .storage("the key store went away") }
        func importKey(_ raw: [UInt8]) throws(WalletError) -> WalletIdentity { throw .storage("the key store went away") }
        func load() throws(WalletError) -> WalletIdentity { throw .storage("the key store went away") }
    }

    @Test func aRestoreStoppedBeforeTheKeyStartsOverWhenRunAgain() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let backup = try alice.exportBackup(passphrase: "correct horse", cost: .testing)
        let directory = h.path("alice2")
        #expect(throws: WalletError.self) {
            try Wallet.restore(
                backup, passphrase: "correct horse", into: directory, keyStore: FailingKeyStore(), environment: h.environment())
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/" + Wallet.databaseFileName))

        let restored = try Wallet.restore(
            backup, passphrase: "correct horse", into: directory, keyCost: .testing, environment: h.environment())
        #expect(restored.publicKey != alice.publicKey)
        #expect(try restored.balance().needsOnlineCheck == 10_000)
        #expect(try restored.balance().spendable == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + Self.marker))
        #expect(try Wallet.open(directory: directory, environment: h.environment()).publicKey == restored.publicKey)
    }

    @Test func aRestoreStoppedAfterTheKeyIsNeverOpenedAndStartsOverWhenRunAgain() throws {
        let h = try WalletHarness()
        let alice = try h.wallet("alice", funds: [10_000])
        let backup = try alice.exportBackup(passphrase: "correct horse", cost: .testing)
        let directory = h.path("alice2")
        let firstKey = try Wallet.restore(
            backup, passphrase: "correct horse", into: directory, keyCost: .testing, environment: h.environment()
        ).publicKey
        // The state a crash between the new key and the marking commit leaves: the marker is
        // still there (the marking is one transaction; it is either all there or not at all).
        #expect(FileManager.default.createFile(atPath: directory + "/" + Self.marker, contents: Data()))

        let refused = walletError { _ = try Wallet.open(directory: directory, environment: h.environment()) }
        guard case .storage(let why) = refused else {
            Issue.record("opening a half-restored wallet: \(String(describing: refused))")
            return
        }
        #expect(why.contains("restore"))

        let again = try Wallet.restore(
            backup, passphrase: "correct horse", into: directory, keyCost: .testing, environment: h.environment())
        #expect(again.publicKey != firstKey)
        #expect(try again.balance().needsOnlineCheck == 10_000)
        #expect(try Wallet.open(directory: directory, environment: h.environment()).publicKey == again.publicKey)
        // A finished restore is a wallet: restoring over it is refused.
        #expect(
            walletError {
                _ = try Wallet.restore(
                    backup, passphrase: "correct horse", into: directory, keyCost: .testing, environment: h.environment())
            } == .walletExists(directory))
    }
}
