#if canImport(Darwin)
import Foundation
import WalletAppModels
import WalletFlows

/// Where the wallet lives on the phone, and which wallet directory is the current one.
///
/// Layout, under Application Support (private to the app, not shown in Files):
///
///     Wallets/                      excluded from iCloud and computer backups
///       flow-state.json             pending purchase, auto-recharge rule, last sync
///       <uuid>/wallet.key           the signing key (FileKeyStore; optional passphrase)
///       <uuid>/wallet.sqlite        the notes, history and requests
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
/// **The key — why not the Secure Enclave yet:** `SecureEnclaveKeyStore` (WalletCore) exists,
/// but it is not wired, on purpose, for three reasons read from the code:
/// 1. onboarding (`OnboardingModel` → `AsyncWallet.create(directory:)`), `AppModel.open` and
///    restore (`Wallet.restore`) all make or open a `FileKeyStore` in the wallet directory;
///    none takes a `KeyStore`, so choosing the Secure Enclave needs a model change
///    (a key-store parameter on those three), not an adapter.
/// 2. That store's key handle is `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` (and CryptoKit's
///    default Secure Enclave key is usable only while the phone is unlocked): when iOS launches
///    the app in the background for a sync while the phone is locked, `load()` cannot read the
///    handle, the wallet cannot be opened, and the sync never runs. The handle (and the key's
///    access control) must be `AfterFirstUnlockThisDeviceOnly` before the app may use it.
/// 3. It is untested (no Secure Enclave on Linux or in the simulator).
/// Until then the key is a software P-256 key in a 0600 file under data protection and outside
/// device backups — the "Keychain otherwise" protection level — optionally sealed with the
/// wallet passphrase chosen in onboarding.
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

    /// Removes a wallet directory that is no longer current (the empty wallet a restore
    /// replaced: `RestoreModel` restores only over a wallet holding nothing). Failure is
    /// harmless: the folder is skipped at launch and excluded from backups.
    func removeReplaced(_ directory: String) {
        guard directory.hasPrefix(root.path), directory != currentWallet else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
#endif
