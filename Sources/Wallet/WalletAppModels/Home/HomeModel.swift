import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// The wallet (home) screen: the total and its parts, the online/offline badge, "Updated x ago",
/// the newest transactions and the quick actions.
///
/// Everything on it comes from observation: the wallet's snapshot stream (so a purchase, a sync
/// or an incoming nearby payment shows without the screen asking) and the connectivity monitor.
/// The settled balance lives at the issuer, so it is read when the screen appears, after every
/// sync, and when a snapshot brings a purchase or an online transfer (they move it too).
/// `appear()` starts the observation, `disappear()` stops it.
@Observable
@MainActor
public final class HomeModel {
    /// The quick-actions grid; the view routes each to its sheet.
    public enum QuickAction: String, CaseIterable, Sendable {
        case send, receive, buy, scan
    }

    /// The state of pull-to-refresh.
    public enum RefreshState: Equatable, Sendable {
        case idle
        /// Step k of n of the sync (nil before the first step reported).
        case syncing(SyncProgress?)
        /// The last refresh failed; the message says what to do.
        case failed(String)
    }

    /// "Updated x ago" or "Never synced".
    public enum Freshness: Equatable, Sendable, CustomStringConvertible {
        case neverSynced
        case updated(secondsAgo: UInt64)

        public var description: String {
            switch self {
            case .neverSynced: localized("home.neverSynced", "Never synced")
            case .updated(let s): localized("home.updated", "Updated %@", RelativeTime.ago(s))
            }
        }
    }

    /// The bar under the total: each part's share in thousandths (integers, no floating point).
    public struct Split: Equatable, Sendable {
        public let offlinePermille: Int
        public let settledPermille: Int

        public init(offlinePermille: Int, settledPermille: Int) {
            self.offlinePermille = offlinePermille
            self.settledPermille = settledPermille
        }
    }

    public let session: WalletSession
    /// How many transactions the home screen lists ("View all" opens history).
    public let recentCount: Int

    /// The latest wallet snapshot; nil until the first one arrived.
    public private(set) var snapshot: WalletSnapshot?
    /// The issuer account's settled balance (minor units; negative only after a double spend
    /// was charged); nil until read.
    public private(set) var settled: Int64?
    /// The badge; nil until the monitor said anything.
    public private(set) var connectivity: Connectivity?
    /// When the last sync finished (from the flow state).
    public private(set) var lastSync: Timestamp?
    public private(set) var refreshState: RefreshState = .idle
    /// Why the settled balance or the snapshot could not be read (shown as a banner).
    public private(set) var problem: String?

    /// Runs the app's one sync (`AppModel.sync`: never two at once on one login); nil when this
    /// model runs it on the session itself. Returns nil when the sync failed.
    public typealias SyncRunner = @MainActor () async -> SyncReport?

    private let runSync: SyncRunner?
    private let monitor: any ConnectivityMonitor
    let clock: any AppClock
    private let refreshWithin: UInt64
    private var tasks: [Task<Void, Never>] = []

    /// - Parameters:
    ///   - session: the logged-in session whose wallet and account the screen shows.
    ///   - connectivity: whether the device is online (the badge; pull-to-refresh needs it).
    ///   - clock: the app's clock ("Updated x ago").
    ///   - recentCount: how many recent transactions the screen lists.
    ///   - refreshWithin: notes expiring within this many seconds are refreshed by a sync.
    ///   - runSync: the app's sync runner, so pull-to-refresh joins a sync already running
    ///     (after connectivity returned, say) instead of starting a second one.
    public init(
        session: WalletSession, connectivity: any ConnectivityMonitor, clock: any AppClock = SystemClock(),
        recentCount: Int = 5, refreshWithin: UInt64 = 86_400, runSync: SyncRunner? = nil
    ) {
        self.session = session
        self.runSync = runSync
        self.monitor = connectivity
        self.clock = clock
        self.recentCount = max(0, recentCount)
        self.refreshWithin = refreshWithin
    }

    // MARK: What the screen shows

    public var quickActions: [QuickAction] { QuickAction.allCases }
    public var currency: Currency? { snapshot?.balance.currency }
    /// Everything held offline (spendable, to refresh, to check, expired, reserved).
    public var offlineTotal: UInt64 { snapshot?.balance.total ?? 0 }
    /// Offline plus settled; a negative settled balance lowers it (never below zero).
    public var total: UInt64 {
        let settledPart = settled ?? 0
        if settledPart >= 0 { return Amount.sum([offlineTotal, UInt64(settledPart)]) ?? Amount.max }
        return offlineTotal > settledPart.magnitude ? offlineTotal - settledPart.magnitude : 0
    }
    public var offlineSpendable: UInt64 { snapshot?.balance.spendable ?? 0 }
    public var reserved: UInt64 { snapshot?.balance.reserved ?? 0 }
    public var unsettled: UInt64 { snapshot?.balance.unsettled ?? 0 }
    public var riskBudgetLeft: UInt64 { snapshot?.riskBudgetLeft ?? 0 }
    public var riskBudget: UInt64 { snapshot?.riskBudget ?? 0 }
    /// The newest transactions, newest first.
    public var recent: [HistoryEntry] { Array((snapshot?.recent ?? []).prefix(recentCount)) }
    public var isSyncing: Bool { if case .syncing = refreshState { true } else { false } }

    /// The split bar; both zero when there is nothing.
    public var split: Split {
        let settledPart = UInt64(max(0, settled ?? 0))
        guard let whole = Amount.sum([offlineTotal, settledPart]), whole > 0 else {
            return Split(offlinePermille: 0, settledPermille: 0)
        }
        // Divide first when the product would overflow (amounts near 2^63).
        let (product, overflow) = offlineTotal.multipliedReportingOverflow(by: 1000)
        let offline = Int(overflow ? offlineTotal / max(1, whole / 1000) : product / whole)
        return Split(offlinePermille: min(1000, offline), settledPermille: 1000 - min(1000, offline))
    }

    /// "Updated x ago" against the clock now. Time passing is not observed: the view redraws it
    /// on a timer.
    public var freshness: Freshness {
        guard let lastSync else { return .neverSynced }
        let now = clock.now()
        return .updated(secondsAgo: now > lastSync ? now - lastSync : 0)
    }

    // MARK: Lifecycle

    /// The screen appeared: observe the wallet and the network, read the settled balance.
    /// Calling it again while observing does nothing.
    public func appear() {
        guard tasks.isEmpty else { return }
        lastSync = try? session.flowState.loadFlowState().lastSync
        let wallet = session.wallet
        let recent = recentCount
        tasks.append(
            Task { [weak self] in
                do {
                    for try await snapshot in wallet.snapshots(recent: recent) {
                        guard let self else { return }
                        let movedAccount = Self.movesAccount(from: self.snapshot, to: snapshot)
                        self.snapshot = snapshot
                        // A purchase or an online transfer made anywhere (a sheet, the auto-recharge)
                        // changed the settled balance too: without this, home counted bought notes
                        // twice (offline and still settled) until the next sync.
                        if movedAccount { await self.reloadSettled() }
                    }
                } catch {
                    self?.problem = localized(
                        "home.walletUnreadable",
                        "The wallet could not be read (%@). Restart the app; if it persists, restore from a backup.",
                        ErrorText.message(error))
                }
            })
        let updates = monitor.updates()
        tasks.append(
            Task { [weak self] in
                for await state in updates {
                    guard let self else { return }
                    self.connectivity = state
                }
            })
        tasks.append(Task { [weak self] in await self?.reloadSettled() })
    }

    /// The screen went away: stop observing (a later `appear()` starts again).
    public func disappear() {
        for task in tasks { task.cancel() }
        tasks = []
    }

    /// Whether `next` brings a transaction that moved money on the issuer account (a purchase,
    /// an online transfer), so the settled balance read earlier is out of date. The first
    /// snapshot does not: `appear()` reads the settled balance anyway.
    static func movesAccount(from previous: WalletSnapshot?, to next: WalletSnapshot) -> Bool {
        guard let previous else { return false }
        let known = Set(previous.recent.map(\.id))
        return next.recent.contains { !known.contains($0.id) && ($0.direction == .purchased || $0.online) }
    }

    /// Reads the settled balance from the issuer (offline: kept as it was, with a note).
    public func reloadSettled() async {
        do {
            settled = try await session.account().balance
            problem = nil
        } catch {
            problem = localized("home.settledNotUpdated", "Settled balance not updated: %@", ErrorText.message(error))
        }
    }

    /// Pull-to-refresh and the toolbar's refresh: one sync, reporting its steps; the settled
    /// balance and "Updated" follow its result. A refresh while one runs does nothing.
    public func refresh() async {
        guard !isSyncing else { return }
        refreshState = .syncing(nil)
        if let runSync {
            // The runner reports progress and errors itself (AppModel.syncState).
            if let report = await runSync() {
                apply(report)
                refreshState = .idle
            } else {
                refreshState = .failed(localized("home.syncFailedPull", "Sync failed; pull to try again."))
            }
            return
        }
        do {
            for try await event in session.syncEvents(refreshWithin: refreshWithin, now: clock.now()) {
                switch event {
                case .progress(let progress): refreshState = .syncing(progress)
                case .finished(let report): apply(report)
                }
            }
            refreshState = .idle
        } catch let incomplete as SyncIncomplete {
            apply(incomplete.report)
            refreshState = .failed(SyncText.incomplete(incomplete))
        } catch {
            refreshState = .failed(localized("home.syncFailed", "Sync failed: %@", ErrorText.message(error)))
        }
    }

    /// Takes in a sync run elsewhere (the app's sync when the network came back, a background
    /// sync): the settled balance and "Updated" follow it. The offline balances need nothing:
    /// the snapshot stream saw the sync's writes.
    public func apply(_ report: SyncReport) {
        settled = report.account.balance
        lastSync = report.syncedAt
        problem = nil
    }
}
