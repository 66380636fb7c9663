import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// The one source of truth every screen observes: the wallet, its session, connectivity, the
/// sync in progress and the alerts. Screens read and act through this object, never through
/// copies, so a change made on one tab (a settings change, a sync) is what every tab shows.
///
/// When the network comes back (offline → online) it runs one sync, which includes the
/// auto-recharge; "online" events that arrive while that sync runs join it instead of starting
/// another, so a flapping connection buys at most once. After each sync it asks the
/// `BackgroundScheduler` for the next background sync and posts fraud and expiry alerts, each
/// once (remembered in the settings, so a restart does not repeat them).
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

    public private(set) var wallet: AsyncWallet?
    public private(set) var session: WalletSession?
    /// The home screen's model, made with the session and wired to this model's sync, so
    /// pull-to-refresh and a return online share one sync and both update the screen.
    public private(set) var home: HomeModel?
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
    ///   - refreshWithin: notes expiring within this many seconds are refreshed by a sync.
    ///   - backgroundInterval: seconds after a sync before the next background sync may run.
    public init(
        settings: any SettingsStore, connectivity: any ConnectivityMonitor, scheduler: any BackgroundScheduler,
        notifier: any Notifier, lock: LockModel, clock: any AppClock = SystemClock(),
        refreshWithin: UInt64 = 86_400 * 3, backgroundInterval: UInt64 = 3_600
    ) {
        self.settings = settings
        self.monitor = connectivity
        self.scheduler = scheduler
        self.notifier = notifier
        self.lock = lock
        self.clock = clock
        self.refreshWithin = refreshWithin
        self.backgroundInterval = backgroundInterval
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

    /// The app launched: the lock closes when it is on.
    public func launched() { lock.launched() }

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
    public func open(
        directory: String, passphrase: String? = nil, credentials: any CredentialStore, flowState: any FlowStateStore,
        makeClient: @escaping IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) async throws {
        let wallet = try await AsyncWallet.open(directory: directory, passphrase: passphrase)
        let resume: @Sendable () async throws -> WalletSession = {
            try await WalletSession.resume(wallet: wallet.wallet, credentials: credentials, flowState: flowState, makeClient: makeClient)
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

    /// Stops following connectivity and withdraws the background sync (logout).
    public func stop() async {
        monitorTask?.cancel()
        monitorTask = nil
        resumeLogin = nil
        home?.disappear()
        home = nil
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
                result = .success(try await current.sync(refreshWithin: refreshWithin, now: now) { [self] progress in
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
        case .failure(let error):
            syncTask = nil
            syncState = .failed("Sync failed: \(error)")
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
            backgroundSyncWarning = "\(error.description) The wallet syncs only while the app is open."
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
            // The sync report names the case, not the value at stake (amount 0: unknown); the
            // case reference is what support needs.
            await post(.fraud(amount: 0, currency: currency, caseReference: "case \(fraudCase)"))
        }
        let expired = report.balance.expired
        let alertedExpired = settings.string(forKey: Self.alertedExpiredKey).flatMap { UInt64($0) } ?? 0
        if expired != alertedExpired {
            try? settings.set(expired == 0 ? nil : String(expired), forKey: Self.alertedExpiredKey)
            // The balance gives the expired value, not the number of notes (count 0: unknown).
            if expired > 0 { await post(.expired(count: 0, amount: expired, currency: currency)) }
        }
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
