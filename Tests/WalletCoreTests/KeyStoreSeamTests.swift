import Foundation
import OfflineNotes
import Testing
import WalletCore
import WalletCoreTesting

/// A wallet whose key lives in a key store (the Secure Enclave on a phone; a simulated one
/// here): it pays, receives, reopens and restores like a key-file wallet, and its key never
/// reaches a file or a backup.
@Suite struct KeyStoreSeamTests {
    @Test func aWalletInAKeyStorePaysReceivesAndReopensWithTheSameKey() throws {
        let h = try WalletHarness()
        let enclave = SimulatedEnclave()
        let directory = h.path("alice")
        let alice = try Wallet.create(
            directory: directory, passphrase: "ignored with a key store", keyStore: enclave.store(for: directory),
            environment: h.environment())
        try alice.installTrust(
            authority: h.issuer.authority.publicKey, keyset: h.issuer.keyset.encoded, limits: h.issuer.limits.encoded)
        try h.fund(alice, [5_000])
        #expect(enclave.calls == [.create(directory)])
        #expect(alice.publicKey == enclave.publicKey(for: directory))
        #expect(alice.identity.exportableKey == nil)
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + Wallet.keyFileName), "no key file")

        let bob = try h.wallet("bob")
        try h.transfer(2_000, from: alice, to: bob)
        try h.transfer(500, from: bob, to: alice)
        #expect(try alice.balance().total == 3_500)

        let reopened = try Wallet.open(
            directory: directory, keyStore: enclave.store(for: directory), environment: h.environment())
        #expect(reopened.publicKey == alice.publicKey && enclave.calls.last == .load(directory))
        #expect(try reopened.balance().total == 3_500)
        try h.transfer(1_000, from: reopened, to: bob)
        #expect(try bob.balance().total == 2_500)
        // Without its store the wallet has no key: the key is nowhere in the directory.
        #expect(throws: WalletError.walletMissing(directory + "/" + Wallet.keyFileName)) {
            try Wallet.open(directory: directory, environment: h.environment())
        }
        // A store that holds no key for the directory says the wallet is missing.
        let other = SimulatedEnclave()
        #expect(throws: WalletError.walletMissing(directory)) {
            try Wallet.open(directory: directory, keyStore: other.store(for: directory))
        }
    }

    @Test func itsBackupCarriesNoKeyAndRestoresUnderANewKeyInTheStore() async throws {
        let h = try WalletHarness()
        let enclave = SimulatedEnclave()
        let directory = h.path("alice")
        let alice = try await AsyncWallet.create(
            directory: directory, keyStore: enclave.store(for: directory), environment: h.environment())
        try alice.wallet.installTrust(
            authority: h.issuer.authority.publicKey, keyset: h.issuer.keyset.encoded, limits: h.issuer.limits.encoded)
        try h.fund(alice.wallet, [4_000])
        let backup = try alice.wallet.exportBackup(passphrase: "pw", cost: .testing)
        let restoredDirectory = h.path("restored")
        let restored = try await AsyncWallet.restore(
            backup, passphrase: "pw", into: restoredDirectory, keyPassphrase: "ignored",
            keyStore: enclave.store(for: restoredDirectory),
            environment: h.environment())
        #expect(enclave.calls == [.create(directory), .create(restoredDirectory)])
        #expect(restored.publicKey != alice.publicKey && restored.publicKey == enclave.publicKey(for: restoredDirectory))
        #expect(try restored.wallet.restoredFromKey() == nil, "the backup carried no key to name")
        #expect(try restored.wallet.restoredStates().map(\.amount) == [4_000])
        #expect(!FileManager.default.fileExists(atPath: restoredDirectory + "/" + Wallet.keyFileName))
        let reopened = try await AsyncWallet.open(directory: restoredDirectory, keyStore: enclave.store(for: restoredDirectory))
        #expect(reopened.publicKey == restored.publicKey)

        // A key-file wallet's backup restored into a key store: the old key is named, the new
        // one is the store's (its raw key is not imported: hardware cannot import).
        let carol = try h.wallet("carol", funds: [1_000])
        let carolBackup = try carol.exportBackup(passphrase: "pw", cost: .testing)
        let carolDirectory = h.path("carol-restored")
        let carolRestored = try Wallet.restore(
            carolBackup, passphrase: "pw", into: carolDirectory, keyStore: enclave.store(for: carolDirectory))
        #expect(try carolRestored.restoredFromKey() == carol.publicKey)
        #expect(carolRestored.publicKey != carol.publicKey && carolRestored.publicKey == enclave.publicKey(for: carolDirectory))
        // A store that already holds a key for the directory refuses a second one.
        #expect(throws: WalletError.walletExists(h.path("twice"))) {
            let store = enclave.store(for: h.path("twice"))
            _ = try store.create()
            _ = try Wallet.create(directory: h.path("twice"), keyStore: store)
        }
    }
}
