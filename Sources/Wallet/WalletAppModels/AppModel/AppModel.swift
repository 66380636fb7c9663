import Foundation
import NearbySession
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// Where the signing key of the wallet in a directory lives: a `KeyStore` (the Secure Enclave,
/// the Keychain), or nil when it is the directory's own key file (`FileKeyStore`).
public typealias KeyStoreFactory = @Sendable (_ walletDirectory: String) -> (any KeyStore)?

/// The one source of truth every screen observes: the wallet, its session, connectivity, the
/// sync in progress and the alerts. Screens read and act through this object, never through
/// copies, so a change made on one tab (a settings change, a sync) is what every tab shows.
///
/// When the network comes back (offline → online) it runs one sync, which includes the
/// auto-recharge; "online" events that arrive while that sync runs join it instead of starting
/// another, so a flapping connection buys at most once. After each sync it asks the
/// `BackgroundScheduler` for the next background sync and posts fraud and expiry alerts, each
/// once (remembered in the settings, so a restart does not repeat them).
///
/// It hands out the screen models, all built on its one wallet and session: `home`, `history`
/// and `settings` live as long as the session (a restore or a logout replaces them), and
/// `makeBuy()`, `makeSend()`, `makeReceive(hints:)`, `makeScan()` and `makeNearbyDevices()`
/// make one per sheet. So a settings change is what the next sync reads, and a purchase or a
/// payment made on a sheet shows on home through the wallet's observation.
///
/// ## Example
///
/// ```swift
/// let app = AppModel(
///     settings: settings, connectivity: connectivityMonitor, scheduler: backgroundScheduler,
///     notifier: notifier, lock: LockModel(gate: biometricGate, settings: settings))
/// try await app.open(directory: walletDirectory, credentials: credentials, flowState: flowState)
/// app.launched()
///
/// let home = app.home            // bind the home screen to it
/// let report = await app.sync()  // pull-to-refresh; a return online does the same
/// let send = app.makeSend()      // one per Send sheet
/// ```
@Observable @MainActor
public final class AppModel {
    /// The sync line on the home screen.
    public enum SyncState: Equatable, Sendable {
        case idle
        /// Running; the step once the first one reported (nil just before).
        case syncing(SyncProgress?)
        /// The last sync stopped with this message (it is safe to run again).
        case failed(String)
    }

    /// Settings keys of what was already alerted.
    public static let alertedFraudKey = "alertedFraudCases"
    public static let alertedExpiredKey = "alertedExpiredValue"
    public static let alertedExpiringKey = "alertedExpiring"
    /// Expiry warnings, in seconds before the first held note expires: 24 h and 1 h.
    public static let expiryWarnings: [UInt64] = [86_400, 3_600]

    public private(set) var wallet: AsyncWallet?
    public private(set) var session: WalletSession?
    /// The home screen's model, made with the session and wired to this model's sync, so
    /// pull-to-refresh and a return online share one sync and both update the screen.
    public private(set) var home: HomeModel?
    /// The Transactions tab, observing this wallet (nil before `start`).
    public private(set) var history: HistoryModel?
    /// The Settings tab, on this session and the shared home (nil without a session).
    /// (`settings` is the store it persists to.)
    public private(set) var settingsModel: SettingsModel?
    /// Restore from a backup (Settings → Restore): one for the app's life, so its result stays
    /// on screen after the restored wallet replaced the screen models.
    public private(set) var restore: RestoreModel?
    /// Offline until the monitor says otherwise.
    public private(set) var connectivity: Connectivity = .offline
    public private(set) var syncState: SyncState = .idle
    public private(set) var lastReport: SyncReport?
    /// Alerts raised and not yet dismissed, oldest first.
    public private(set) var alerts: [WalletAlert] = []
    /// Why background sync is unavailable (the system refused), shown in Settings.
    public private(set) var backgroundSyncWarning: String?
    /// Syncs started (observable, and what tests count).
    public private(set) var syncCount = 0

    public let lock: LockModel
    public let settings: any SettingsStore

    private let monitor: any ConnectivityMonitor
    let biometrics: any BiometricGate
    let nearbyBrowser: (any NearbyBrowser)?
    let nearbyAdvertiser: (any NearbyAdvertiser)?
    let sessionOptions: SessionOptions
    let backupDestination: (any BackupDestination)?
    let backupCost: PassphraseBox.Cost
    /// The key store of a wallet directory (nil: its key file). See `init`'s `keyStore`.
    let keyStore: KeyStoreFactory?
    let clockForScreens: any AppClock
    private let scheduler: any BackgroundScheduler
    private let notifier: any Notifier
    private let clock: any AppClock
    private let refreshWithin: UInt64
    private let backgroundInterval: UInt64
    private var syncTask: Task<SyncReport?, Never>?
    /// Set when the wallet was opened offline: resumes the saved login.
    private var resumeLogin: (@Sendable () async throws -> WalletSession)?
    private var monitorTask: Task<Void, Never>?

    /// - Parameters:
    ///   - settings: where the app's preferences and the alerts already posted are persisted.
    ///   - connectivity: tells when the device goes online; a return online runs one sync.
    ///   - scheduler: asks the system for the next background sync.
    ///   - notifier: posts fraud and expiry alerts.
    ///   - lock: the biometric lock screen's model.
    ///   - clock: the app's clock (expiry warnings, "Updated x ago").
    ///   - refreshWithin: notes expiring within this many seconds are refreshed by a sync.
    ///   - backgroundInterval: seconds after a sync before the next background sync may run.
    ///   - biometrics: the gate Settings checks before turning the lock on.
    ///   - nearbyBrowser: discovery for the Nearby devices sheet (Bluetooth LE in the app); Send
    ///     also reaches a scanned request's payee through it.
    ///   - nearbyAdvertiser: the endpoint each Receive request is served on (Bluetooth LE in the
    ///     app); without it, requests carry only the hints `makeReceive` is given.
    ///   - sessionOptions: the nearby session's timing for Send and Receive.
    ///   - backupDestination: where Settings → Back up writes (the app's document exporter).
    ///   - backupCost: the backup's key-derivation cost (tests use `.testing`).
    ///   - restoreInto: a new, empty directory for each wallet restored from a backup (the
    ///     app's container; the old wallet's directory is the app's to remove). Without it
    ///     Settings offers no restore.
    ///   - restoreKeyCost: the restored wallet's key-file cost (tests use `.testing`).
    ///   - keyStore: where each wallet directory's signing key lives (the Secure Enclave or the
    ///     Keychain in the app), used by onboarding (`makeOnboarding`), `open` and restore. It
    ///     returns nil for a directory whose key is its own key file (`FileKeyStore`, sealable with
    ///     a passphrase; a wallet made before the app had key stores). Nil: every wallet's key
    ///     is its key file, as on the command line.
    public init(
        settings: any SettingsStore, connectivity: any ConnectivityMonitor, scheduler: any BackgroundScheduler,
        notifier: any Notifier, lock: LockModel, clock: any AppClock = SystemClock(),
        refreshWithin: UInt64 = 86_400 * 3, backgroundInterval: UInt64 = 3_600,
        biometrics: any BiometricGate = NoBiometrics(), nearbyBrowser: (any NearbyBrowser)? = nil,
        sessionOptions: SessionOptions = SessionOptions(), backupDestination: (any BackupDestination)? = nil,
        backupCost: PassphraseBox.Cost = .interactive, restoreInto: (@Sendable () -> String)? = nil,
        restoreKeyCost: PassphraseBox.Cost = .interactive, nearbyAdvertiser: (any NearbyAdvertiser)? = nil,
        keyStore: KeyStoreFactory? = nil
    ) {
        self.settings = settings
        self.keyStore = keyStore
        self.biometrics = biometrics
        self.nearbyBrowser = nearbyBrowser
        self.nearbyAdvertiser = nearbyAdvertiser
        self.sessionOptions = sessionOptions
        self.backupDestination = backupDestination
        self.backupCost = backupCost
        self.clockForScreens = clock
        self.monitor = connectivity
        self.scheduler = scheduler
        self.notifier = notifier
        self.lock = lock
        self.clock = clock
        self.refreshWithin = refreshWithin
        self.backgroundInterval = backgroundInterval
        if let restoreInto {
            restore = RestoreModel(app: self, directory: restoreInto, keyCost: restoreKeyCost)
        }
    }

    /// Holds the wallet and its session (after onboarding or a resumed login) and starts
    /// following connectivity.
    public func start(wallet: AsyncWallet, session: WalletSession?) {
        self.wallet = wallet
        self.session = session
        home?.disappear()
        home = session.map { session in
            HomeModel(session: session, connectivity: monitor, clock: clock, refreshWithin: refreshWithin) { [weak self] in
                await self?.sync()
            }
        }
        history?.disappear()
        // Pull-to-refresh on history is the app's one sync (joined, never a second one).
        let historySync: HomeModel.SyncRunner = { [weak self] in await self?.sync() }
        history = HistoryModel(
            wallet: wallet.wallet, clock: clock, runSync: session == nil && resumeLogin == nil ? nil : historySync)
        if let session, let home {
            let model = SettingsModel(
                session: session, home: home, settings: settings, biometrics: biometrics,
                backupDestination: backupDestination, backupCost: backupCost)
            model.restore = restore
            settingsModel = model
        } else {
            settingsModel = nil
        }
        Task { await self.checkExpiry() }
        monitorTask?.cancel()
        if session != nil {
            // Background sync from the start, not only after the first foreground sync.
            let now = clock.now()
            Task { await self.scheduleBackgroundSync(after: now) }
        }
        let updates = monitor.updates()
        monitorTask = Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                self.connectivityChanged(to: state)
            }
        }
    }

    // MARK: App lifecycle (the SwiftUI scene phase calls these)

    /// The app launched: the lock closes when it is on, and the expiry warnings are checked.
    public func launched() {
        lock.launched()
        Task { await checkExpiry() }
    }

    /// The app went to the background: the lock closes when it is on.
    public func enteredBackground() { lock.enteredBackground() }

    /// The system's background refresh ran (BGAppRefreshTask): one sync, joined with any
    /// running one. Returns whether it succeeded (the task's completion flag).
    public func runBackgroundSync() async -> Bool {
        await sync() != nil
    }

    /// App launch: opens the wallet off the main actor and resumes the saved login, then
    /// `start`s. When the issuer cannot be reached the wallet opens without a session (it pays
    /// and receives offline) and the next return online, or `sync()`, resumes the login first.
    /// A refused login (`WalletFlowError.loginExpired`) is thrown: show onboarding's log in.
    /// The key comes from the app's key store for `directory` (`init`'s `keyStore`); the
    /// `passphrase` applies only to a wallet whose key is its key file.
    public func open(
        directory: String, passphrase: String? = nil, credentials: any CredentialStore, flowState: any FlowStateStore,
        makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) async throws {
        let wallet = try await AsyncWallet.open(directory: directory, passphrase: passphrase, keyStore: keyStore?(directory))
        let resume: @Sendable () async throws -> WalletSession = {
            try await WalletSession.resume(
                wallet: wallet.wallet, credentials: credentials, flowState: flowState, makeClient: makeClient)
        }
        do {
            let session = try await resume()
            resumeLogin = nil
            start(wallet: wallet, session: session)
        } catch let error as IssuerClientError where error.isUnreachable {
            resumeLogin = resume
            start(wallet: wallet, session: nil)
        }
    }

    /// A login resumed later (opened offline): from now on the screens use it.
    private func adopt(_ session: WalletSession) {
        resumeLogin = nil
        guard let wallet else { return }
        start(wallet: wallet, session: session)
    }

    /// Whether the open wallet has no login and none to resume (after a logout or a server
    /// change): only logging in again (`makeLogIn`) brings sync back. False while a login
    /// waits for the network (opened offline): that one resumes by itself.
    public var needsLogIn: Bool { wallet != nil && session == nil && resumeLogin == nil }

    /// Stops following connectivity and withdraws the background sync (logout).
    public func stop() async {
        monitorTask?.cancel()
        monitorTask = nil
        resumeLogin = nil
        home?.disappear()
        home = nil
        history?.disappear()
        history = nil
        settingsModel = nil
        session = nil
        await scheduler.cancelSync()
    }

    private func connectivityChanged(to state: Connectivity) {
        let previous = connectivity
        connectivity = state
        // Offline → online counts. The model starts out offline, so a launch while online is a
        // return too (one sync on launch); a re-subscription reporting the same state is not.
        if previous == .offline, state == .online, session != nil || resumeLogin != nil { _ = startSync() }
    }

    /// Runs a sync now (pull-to-refresh, a background task), or joins the one running.
    /// Returns its report, nil when it failed (see `syncState`) or there is no session.
    @discardableResult
    public func sync() async -> SyncReport? {
        await startSync()?.value
    }

    /// The running sync, or a new one. Never two at once: one session rotates one login, and
    /// two auto-recharges side by side could both buy.
    private func startSync() -> Task<SyncReport?, Never>? {
        if let syncTask { return syncTask }
        let session = self.session
        let resumeLogin = self.resumeLogin
        guard session != nil || resumeLogin != nil else { return nil }
        syncCount += 1
        syncState = .syncing(nil)
        let now = clock.now()
        let refreshWithin = refreshWithin
        // Holds the model until the sync ends (bounded): its outcome must reach the screens.
        let task = Task { () -> SyncReport? in
            let result: Result<SyncReport, any Error>
            do {
                let current: WalletSession
                if let session {
                    current = session
                } else {
                    // Opened offline: the saved login is resumed first (inside this one sync,
                    // so a second "online" cannot resume, and rotate the token, twice).
                    guard let resumeLogin else { return nil }
                    current = try await resumeLogin()
                    self.adopt(current)
                }
                result = .success(
                    try await current.sync(refreshWithin: refreshWithin, now: now) { [self] progress in
                        Task { @MainActor in self.progressed(progress) }
                    })
            } catch {
                result = .failure(error)
            }
            return await self.finish(result)
        }
        syncTask = task
        return task
    }

    private func progressed(_ progress: SyncProgress) {
        // A late hop after the sync ended must not show it running again.
        if case .syncing = syncState, syncTask != nil { syncState = .syncing(progress) }
    }

    private func finish(_ result: Result<SyncReport, any Error>) async -> SyncReport? {
        switch result {
        case .failure(let incomplete as SyncIncomplete):
            // The steps that ran changed balances and may have named fraud: shown like a
            // finished sync, with the failed steps as the sync's problem.
            await raiseAlerts(from: incomplete.report)
            syncTask = nil
            syncState = .failed(ErrorText.message(incomplete))
            lastReport = incomplete.report
            home?.apply(incomplete.report)
            return nil
        case .failure(let error):
            syncTask = nil
            syncState = .failed(localized("sync.failed", "Sync failed: %@", ErrorText.message(error)))
            return nil
        case .success(let report):
            await raiseAlerts(from: report)
            await scheduleBackgroundSync(after: report.syncedAt)
            // All in one main-actor turn, after the awaits: whoever sees `.idle` (or the new
            // report) can start the next sync instead of joining this one.
            syncTask = nil
            syncState = .idle
            lastReport = report
            // Settled balance and "Updated" on home, whoever started the sync.
            home?.apply(report)
            return report
        }
    }

    /// Asks for the next background sync `backgroundInterval` after `time`.
    private func scheduleBackgroundSync(after time: Timestamp) async {
        do {
            try await scheduler.scheduleSync(notBefore: time + backgroundInterval)
            backgroundSyncWarning = nil
        } catch {
            backgroundSyncWarning = localized(
                "sync.backgroundUnavailable", "%@ The wallet syncs only while the app is open.", ErrorText.message(error))
        }
    }

    // MARK: Alerts

    /// Posts each fraud case once, and expired value once per new expired amount.
    private func raiseAlerts(from report: SyncReport) async {
        let currency = report.balance.currency
        var alerted = Set((settings.string(forKey: Self.alertedFraudKey) ?? "").split(separator: ",").compactMap { Int64($0) })
        for fraudCase in report.fraudCases where !alerted.contains(fraudCase) {
            alerted.insert(fraudCase)
            // Saved before posting: a crash between the two loses an alert rather than repeating it forever.
            try? settings.set(alerted.sorted().map(String.init).joined(separator: ","), forKey: Self.alertedFraudKey)
            // The value at stake comes from the wallet's own notes in the case (the issuer's
            // answer names only the case); 0 only when no note of this wallet's was named.
            let reference = localized("alert.caseReference", "case %@", String(fraudCase))
            await post(.fraud(amount: report.fraudAmounts[fraudCase] ?? 0, currency: currency, caseReference: reference))
        }
        let expired = report.balance.expired
        let alertedExpired = settings.string(forKey: Self.alertedExpiredKey).flatMap { UInt64($0) } ?? 0
        if expired != alertedExpired {
            try? settings.set(expired == 0 ? nil : String(expired), forKey: Self.alertedExpiredKey)
            // The balance gives the expired value, not the number of notes (count 0: unknown).
            if expired > 0 { await post(.expired(count: 0, amount: expired, currency: currency)) }
        }
        await checkExpiry()
    }

    /// Warns before held notes expire: once 24 h before the first one expires and once 1 h
    /// before, with the value expiring by then and the expiry time. Each warning is posted once
    /// per expiry time (remembered in the settings across restarts); within 1 h only the 1 h
    /// one is posted. Runs at `start`, after every sync and at launch; the app also calls it
    /// from a timer while open (offline is when it matters: a sync refreshes the notes).
    public func checkExpiry() async {
        guard let wallet else { return }
        let now = clock.now()
        let widest = Self.expiryWarnings.max() ?? 0
        guard let (first, currency) = await Self.outlook(wallet.wallet, now: now, within: widest),
            let soonest = first.soonest
        else { return }
        // The tightest warning already due (soonest > now: only valid notes are counted).
        guard let warning = Self.expiryWarnings.sorted().first(where: { soonest - now <= $0 }) else { return }
        let key = "\(warning)@\(soonest)"
        let value: UInt64
        if warning == widest {
            value = first.value
        } else {
            guard let (narrow, _) = await Self.outlook(wallet.wallet, now: now, within: warning) else { return }
            value = narrow.value
        }
        // Read, checked and saved in one main-actor turn (no await between): two checks at
        // once (start and a sync) post it once. Entries for expiry times already past are
        // dropped as the list is saved.
        var alerted = (settings.string(forKey: Self.alertedExpiringKey) ?? "").split(separator: ",").map(String.init)
            .filter { entry in entry.split(separator: "@").last.flatMap { UInt64($0) }.map { $0 > now } ?? false }
        guard !alerted.contains(key) else { return }
        alerted.append(key)
        try? settings.set(alerted.joined(separator: ","), forKey: Self.alertedExpiringKey)
        await post(.expiring(amount: value, currency: currency, expiresAt: soonest))
    }

    /// The wallet's expiry outlook and currency, read off the main actor; nil when unreadable
    /// (a warning skipped now is posted by the next check).
    @concurrent
    private nonisolated static func outlook(
        _ wallet: Wallet, now: Timestamp, within seconds: UInt64
    ) async -> (ExpiryOutlook, Currency)? {
        guard let outlook = try? wallet.expiryOutlook(now: now, by: now + seconds), let limits = try? wallet.limits() else {
            return nil
        }
        return (outlook, limits.currency)
    }

    private func post(_ alert: WalletAlert) async {
        alerts.append(alert)
        await notifier.post(alert)
    }

    /// The person saw `alert` (it stays posted once; dismissing does not bring it back).
    public func dismiss(_ alert: WalletAlert) {
        alerts.removeAll { $0 == alert }
    }
}
