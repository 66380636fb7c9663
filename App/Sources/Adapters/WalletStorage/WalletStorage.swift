#if canImport(Darwin)
import Foundation
import WalletAppModels
import WalletCore
import WalletFlows

/// Where the wallet lives on the phone, and which wallet directory is the current one.
///
/// Layout, under Application Support (private to the app, not shown in Files):
///
///     Wallets/                      excluded from iCloud and computer backups
///       flow-state.json             pending purchase, auto-recharge rule, last sync
///       <uuid>/wallet.sqlite        the notes, history and requests
///       <uuid>/wallet.key           only in a wallet made before the key moved to the Keychain
///
/// Keychain (this device only, accessible after the first unlock), one item per wallet, its
/// account the wallet directory's name `<uuid>`:
///
///     org.offlinewallet.app.signing-key / <uuid>   the Secure Enclave key's handle
///                                                  (`SecureEnclaveKeyStore`, where the phone has one)
///     org.offlinewallet.app.wallet-key / <uuid>    a software P-256 key (`KeychainKeyStore`, otherwise:
///                                                  the simulator)
///
/// **Why no device backup:** a wallet restored from an iCloud backup onto a second phone would
/// hold the same notes as the first, and spending both is a double spend the issuer catches as
/// fraud. The app's own encrypted backup (Settings → Back up) is the way to move a wallet: it
/// restores under a new key and exchanges the notes online.
///
/// **Data protection:** files get iOS's default class, complete until first user
/// authentication: encrypted with the device passcode until the first unlock after a boot,
/// readable afterwards, so the background sync can open the wallet while the phone is locked.
///
/// **The key** (`keyStore(forWallet:)`, `AppModel`'s key-store factory, used by onboarding,
/// every open and a restore): in the Secure Enclave where the phone has one — it cannot leave
/// the chip, so a backup carries no key and a restore makes a new one (which the backup format
/// already expects) — and a software key in the Keychain otherwise, which backups carry as they
/// carry a key file. Either way onboarding asks for no key passphrase (nothing would be sealed).
/// Both the Keychain items and the enclave key are `AfterFirstUnlockThisDeviceOnly` (the enclave
/// key with `.privateKeyUsage` only, no user presence): iOS launches the app in the background
/// for a sync while the phone may be locked, and the wallet must open and sign then; before the
/// first unlock after a boot the wallet database is unreadable anyway. A wallet made before this
/// (its directory holds `wallet.key`) keeps its key file, passphrase and all: the factory
/// returns nil for it, which is the file store.
///
/// **Untested here:** the two Keychain stores run only on iOS (Linux runs the same seam with a
/// simulated non-exportable store: KeyStoreSeamTests, KeyStoreAppTests). App/README.md lists the
/// device steps: onboarding, a background sync while locked, a restore.
struct WalletStorage: Sendable {
    /// The folder holding every wallet directory and the flow state.
    let root: URL
    /// Remembers the current wallet's directory name.
    let settings: any SettingsStore

    static let currentKey = "walletDirectory"

    /// The app's storage: Application Support/Wallets, created and excluded from backups.
    static func standard(settings: any SettingsStore) throws -> WalletStorage {
        let support = try FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        let storage = WalletStorage(root: support.appendingPathComponent("Wallets", isDirectory: true), settings: settings)
        try storage.prepareRoot()
        return storage
    }

    /// Creates `root` (owner-only) and marks it excluded from backup, which covers its contents.
    func prepareRoot() throws {
        try FileManager.default.createDirectory(
            at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = root
        try url.setResourceValues(values)
    }

    /// The flows' non-secret state, next to the wallets (it outlives a restore, which replaces
    /// the wallet directory but not the account's auto-recharge rule). The login is not in it:
    /// it is in the Keychain (`KeychainCredentialStore`), so this file never holds a token.
    var flowState: any FlowStateStore {
        ConfigFileStore(path: root.appendingPathComponent("flow-state.json").path, seal: nil)
    }

    /// The current wallet's directory when it holds a wallet; nil before onboarding.
    var currentWallet: String? {
        guard let name = settings.string(forKey: Self.currentKey) else { return nil }
        let directory = root.appendingPathComponent(name, isDirectory: true).path
        let database = (directory as NSString).appendingPathComponent("wallet.sqlite")
        return FileManager.default.fileExists(atPath: database) ? directory : nil
    }

    /// A new, empty directory path for onboarding or a restore (not created yet: the engine
    /// creates it with owner-only permissions).
    func newWalletDirectory() -> String {
        root.appendingPathComponent(UUID().uuidString, isDirectory: true).path
    }

    /// Makes `directory` the wallet opened at the next launch. Called once `AppModel` holds a
    /// wallet from that directory (onboarding finished, a restore adopted), never before, so a
    /// failed restore leaves the old wallet current.
    func makeCurrent(_ directory: String) throws {
        let name = URL(fileURLWithPath: directory).lastPathComponent
        try settings.set(name, forKey: Self.currentKey)
    }

    /// Where the key of the wallet in `directory` lives (`AppModel`'s `keyStore`): nil — its key
    /// file — when the directory already holds `wallet.key` (a wallet from before key stores),
    /// else the Secure Enclave when the phone has one, else the Keychain. The choice never
    /// changes for a wallet: a phone has a Secure Enclave or not.
    @Sendable static func keyStore(forWallet directory: String) -> (any KeyStore)? {
        let keyFile = (directory as NSString).appendingPathComponent(Wallet.keyFileName)
        if FileManager.default.fileExists(atPath: keyFile) { return nil }
        let account = URL(fileURLWithPath: directory).lastPathComponent
        if SecureEnclaveKeyStore.isAvailable { return SecureEnclaveKeyStore(account: account) }
        return KeychainKeyStore(account: account)
    }

    /// Removes a wallet directory that is no longer current (the empty wallet a restore
    /// replaced: `RestoreModel` restores only over a wallet holding nothing). Failure is
    /// harmless: the folder is skipped at launch and excluded from backups.
    func removeReplaced(_ directory: String) {
        guard directory.hasPrefix(root.path), directory != currentWallet else { return }
        // Its key too (registered to the account, useless without the notes).
        switch Self.keyStore(forWallet: directory) {
        case let store as SecureEnclaveKeyStore: store.delete()
        case let store as KeychainKeyStore: store.delete()
        default: break
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
#endif
