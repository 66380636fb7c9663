#if canImport(UIKit)
import Foundation
import Observation
import UIKit
import WalletAppModels
import WalletCore
import WalletFlows

/// The composition root: builds every adapter and the one `AppModel`, opens the wallet (or
/// leads to onboarding), keeps track of which wallet directory is current, and runs the
/// background sync iOS asks for. It holds no screen logic: once the wallet question is settled
/// it hands `AppModel` to `RootView`.
///
/// It lives as long as the process, including launches iOS makes in the background for a sync
/// (no window, no view ever appears): so opening the wallet is started here, not from a view.
@Observable @MainActor
final class AppRoot {
    /// What the window shows before `RootView`.
    enum Phase: Equatable {
        /// Opening the wallet (reading the key, resuming the login).
        case opening
        /// The wallet's key is sealed with a passphrase: ask for it (with why the last try failed).
        case needsPassphrase(String?)
        /// Ready for `RootView`: a wallet is open, or there is none and RootView onboards.
        case ready
        /// Nothing can work (no storage); the message says what happened.
        case failed(String)
    }

    private(set) var phase: Phase = .opening
    /// The passphrase field of the launch screen (cleared once used).
    var passphrase = ""
    let app: AppModel

    @ObservationIgnored private let storage: WalletStorage?
    @ObservationIgnored private let credentials = KeychainCredentialStore()
    @ObservationIgnored private let notifier: LocalNotifier
    @ObservationIgnored let scheduler: BackgroundSyncScheduler
    @ObservationIgnored let bluetooth: BluetoothBrowser
    @ObservationIgnored let advertiser: BluetoothAdvertiser
    /// The first open, shared by the window and a background launch's sync.
    @ObservationIgnored private var opening: Task<Void, Never>?
    /// The directory of the wallet `app` holds (nil before one is open).
    @ObservationIgnored private var walletDirectory: String?

    init() {
        let settings = UserDefaultsSettingsStore()
        let storage: WalletStorage?
        let problem: String?
        do {
            storage = try WalletStorage.standard(settings: settings)
            problem = nil
        } catch {
            storage = nil
            problem =
                "The app cannot create its storage (\(error.localizedDescription)). Free some space on the phone, then open the app again."
        }
        let gate = DeviceOwnerGate()
        let notifier = LocalNotifier()
        let scheduler = BackgroundSyncScheduler()
        let bluetooth = BluetoothBrowser()
        let advertiser = BluetoothAdvertiser()
        // The lock's passphrase fallback exists only for a wallet whose key is sealed with one
        // (checked at launch; a wallet created with one in this run gets it at the next launch).
        let keyFile = storage?.currentWallet.map { ($0 as NSString).appendingPathComponent(Wallet.keyFileName) }
        let verify = keyFile.flatMap { Self.isSealed(keyFile: $0) ? Self.passphraseCheck(keyFile: $0) : nil }
        let lock = LockModel(gate: gate, settings: settings, verifyPassphrase: verify)
        let restoreInto: @Sendable () -> String = {
            storage?.newWalletDirectory() ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(UUID().uuidString)
        }
        app = AppModel(
            settings: settings, connectivity: PathConnectivityMonitor(), scheduler: scheduler, notifier: notifier, lock: lock,
            biometrics: gate, nearbyBrowser: bluetooth, backupDestination: try? FilesBackupDestination(),
            restoreInto: restoreInto, nearbyAdvertiser: advertiser,
            // The Secure Enclave, or the Keychain; a wallet made before keeps its key file.
            keyStore: WalletStorage.keyStore(forWallet:)
        )
        self.storage = storage
        self.notifier = notifier
        self.scheduler = scheduler
        self.bluetooth = bluetooth
        self.advertiser = advertiser
        if let problem { phase = .failed(problem) }
        followWallet()
    }

    // MARK: Opening

    /// Opens the current wallet once (later calls wait for the same opening). Without a wallet
    /// the phase becomes `.ready` and RootView shows onboarding.
    func openWallet() async {
        if let opening { return await opening.value }
        let task = Task { await self.open(passphrase: nil) }
        opening = task
        await task.value
    }

    /// The launch screen's Unlock: opens the sealed wallet with `passphrase`.
    func submitPassphrase() async {
        guard case .needsPassphrase = phase, !passphrase.isEmpty else { return }
        let typed = passphrase
        phase = .opening
        await open(passphrase: typed)
    }

    private func open(passphrase: String?) async {
        guard let storage, phase != .ready else { return }
        guard let directory = storage.currentWallet else {
            phase = .ready
            return
        }
        do {
            try await app.open(
                directory: directory, passphrase: passphrase, credentials: credentials, flowState: storage.flowState)
        } catch let error as WalletError {
            switch error {
            case .passphraseRequired: phase = .needsPassphrase(nil)
            case .wrongPassphrase:
                phase = .needsPassphrase("Wrong passphrase. Type the passphrase you chose when you created the wallet.")
            default: phase = .failed("The wallet could not be opened: \(error.description)")
            }
            return
        } catch is WalletFlowError {
            // No saved login, or the issuer refused it (and it was forgotten): the wallet still
            // pays and receives offline; RootView says Settings and the sync need a login.
            await openOffline(directory: directory, passphrase: passphrase)
            return
        } catch {
            phase = .failed("The wallet could not be opened: \(error)")
            return
        }
        self.passphrase = ""
        phase = .ready
    }

    /// The wallet without a session (its login is gone).
    private func openOffline(directory: String, passphrase: String?) async {
        do {
            let wallet = try await AsyncWallet.open(
                directory: directory, passphrase: passphrase, keyStore: WalletStorage.keyStore(forWallet: directory))
            app.start(wallet: wallet, session: nil)
            self.passphrase = ""
            phase = .ready
        } catch {
            phase = .failed("The wallet could not be opened: \(error.description)")
        }
    }

    /// Onboarding's model: a new wallet directory each time (a wallet half-made by an
    /// abandoned onboarding is never reused or current; it only takes space), its key in the
    /// app's key store (`app.makeOnboarding`: no passphrase step).
    func makeOnboarding() -> OnboardingModel {
        let storage = storage ?? WalletStorage(root: FileManager.default.temporaryDirectory, settings: app.settings)
        return app.makeOnboarding(
            walletDirectory: storage.newWalletDirectory(), credentials: credentials, flowState: storage.flowState)
    }

    /// "Log in" for the wallet this phone holds (after a logout, a server change, or a login the
    /// issuer refused at launch: `AppModel.needsLogIn`), through the same Keychain and flow-state
    /// stores the wallet was opened with. Nil while no wallet is open.
    func makeLogIn() -> OnboardingModel? {
        guard let storage else { return nil }
        return app.makeLogIn(credentials: credentials, flowState: storage.flowState)
    }

    // MARK: The current wallet

    /// Follows `app.wallet`: when onboarding finishes or a restore is adopted, the new wallet's
    /// directory becomes the one opened at the next launch, and the wallet it replaced (empty:
    /// `RestoreModel` restores only over a wallet that holds nothing) is removed, so its key —
    /// still registered to the account — does not linger in a file.
    private func followWallet() {
        withObservationTracking {
            _ = app.wallet
        } onChange: { [weak self] in
            // Called before the change is stored: read it on the next main-actor turn.
            Task { @MainActor in
                guard let self else { return }
                self.walletChanged()
                self.followWallet()
            }
        }
    }

    private func walletChanged() {
        guard let storage, let database = app.wallet?.wallet.databasePath else { return }
        let directory = (database as NSString).deletingLastPathComponent
        guard directory != walletDirectory else { return }
        let replaced = walletDirectory
        walletDirectory = directory
        // UserDefaults never refuses a write; a failure here would only reopen the old wallet.
        try? storage.makeCurrent(directory)
        if let replaced { storage.removeReplaced(replaced) }
        if phase != .ready { phase = .ready }
        // Once a wallet exists, notifications have a purpose; iOS prompts only the first time,
        // and only in the foreground (a background launch asks at the next open instead).
        if UIApplication.shared.applicationState != .background {
            Task { await notifier.requestPermission() }
        }
    }

    // MARK: Receiving nearby

    /// RootView's `listen`: the Receive screen's request served on the Bluetooth LE endpoint
    /// `AppModel`'s advertiser made for it (`ReceiveModel.listenNearby()`: advertised until a
    /// payer pays, the timeout passes or the screen closes), and a payment that arrives while
    /// the app is in the background (the phone locked on Receive; the `bluetooth-peripheral`
    /// background mode keeps serving) is notified — the screen shows it otherwise.
    var listen: @MainActor (ReceiveModel) async -> Void {
        { [notifier] receive in
            await receive.listenNearby()
            if let incoming = receive.incoming, UIApplication.shared.applicationState != .active {
                await notifier.postPaymentReceived(amount: incoming.amount, currency: incoming.currency)
            }
        }
    }

    // MARK: Background sync

    /// What iOS runs for the background task: opens the wallet when this is a background launch,
    /// then one sync (joined with any running). A wallet that cannot be opened without the person
    /// (a passphrase, onboarding not done) has nothing to sync: that counts as done, so iOS is
    /// not asked to retry. After a sync the app ran on its own, its auto-recharge is notified.
    func backgroundSync() async -> Bool {
        await openWallet()
        guard phase == .ready, app.wallet != nil else { return true }
        let succeeded = await app.runBackgroundSync()
        if succeeded, let report = app.lastReport, UIApplication.shared.applicationState != .active {
            await notifier.postBackgroundSync(report)
        }
        return succeeded
    }

    // MARK: The key's passphrase

    /// Whether the key file is sealed with a passphrase: loading it without one says so
    /// (reading the header only; no key derivation runs).
    private nonisolated static func isSealed(keyFile: String) -> Bool {
        do {
            _ = try FileKeyStore(path: keyFile).load()
            return false
        } catch {
            return error == .passphraseRequired
        }
    }

    /// The lock screen's fallback: the passphrase opens the key file (scrypt, off the main actor).
    private nonisolated static func passphraseCheck(keyFile: String) -> @Sendable (String) async -> Bool {
        { passphrase in
            await Task.detached(priority: .userInitiated) {
                (try? FileKeyStore(path: keyFile, passphrase: passphrase).load()) != nil
            }.value
        }
    }
}
#endif
