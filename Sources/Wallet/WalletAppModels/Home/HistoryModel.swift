import Foundation
import Observation
import OfflineNotes
import WalletCore

/// "x ago" for a number of seconds, as the history rows and "Updated x ago" show it.
public enum RelativeTime {
    public static func ago(_ seconds: UInt64) -> String {
        switch seconds {
        case ..<60: localized("time.justNow", "just now")
        case ..<3_600:
            localized("time.minutesAgo", count: Int(clamping: seconds / 60), one: "%lld min ago", other: "%lld min ago")
        case ..<86_400: localized("time.hoursAgo", count: Int(clamping: seconds / 3_600), one: "%lld h ago", other: "%lld h ago")
        default: localized("time.daysAgo", count: Int(clamping: seconds / 86_400), one: "%lld d ago", other: "%lld d ago")
        }
    }
}

/// The Transactions tab's history: filter chips with counts, the rows, and the detail sheet.
///
/// The rows come from the wallet's snapshot stream (its newest `Wallet.maxSnapshotHistory`
/// lines), so a payment received, a sync's imports or a failed send appear without a reload,
/// and the chip counts always agree with the rows. Older lines are the next step's paging.
@Observable
@MainActor
public final class HistoryModel {
    /// The filter chips, in order.
    public enum Filter: String, CaseIterable, Sendable {
        case all, offline, online, pending, failed

        /// The chip's label.
        public var title: String {
            switch self {
            case .all: localized("history.filterAll", "All")
            case .offline: localized("history.filterOffline", "Offline")
            case .online: localized("history.filterOnline", "Online")
            case .pending: localized("history.filterPending", "Pending")
            case .failed: localized("history.filterFailed", "Failed")
            }
        }

        /// What the list says when this chip has no rows.
        var emptyText: String {
            switch self {
            case .all: localized("history.emptyAll", "No transactions yet. Buy notes or receive a payment to start.")
            case .offline: localized("history.emptyOffline", "No offline transactions.")
            case .online: localized("history.emptyOnline", "No online transactions.")
            case .pending: localized("history.emptyPending", "No pending transactions.")
            case .failed: localized("history.emptyFailed", "No failed transactions.")
            }
        }

        public func includes(_ entry: HistoryEntry) -> Bool {
            switch self {
            case .all: true
            case .offline: !entry.online
            case .online: entry.online
            case .pending: entry.status == .pending
            case .failed: entry.status == .failed
            }
        }
    }

    /// One row as drawn.
    public struct Row: Equatable, Sendable, Identifiable {
        public let id: Int64
        public let direction: HistoryEntry.Direction
        public let counterparty: String
        /// "5 min ago".
        public let relativeTime: String
        public let createdAt: Timestamp
        /// The method badge: "QR", "Bluetooth", "Nearby", "Online".
        public let method: String
        /// Signed money text: "+25.00 EUR" for money in, "−25.00 EUR" for money out.
        public let amountText: String
        public let amount: UInt64
        public let status: HistoryEntry.Status
        /// What went wrong, on failed rows.
        public let error: String?
        /// Whether the money came in (received, purchased, funded, refunded).
        public var isIncoming: Bool { ![.sent, .charged].contains(direction) }
        /// `createdAt` as a date, for the row's time of day (formatted by the view in the
        /// person's locale and time zone).
        public var date: Date { Date(timeIntervalSince1970: TimeInterval(createdAt)) }
    }

    /// The detail sheet: the proof behind one line.
    public struct Detail: Equatable, Sendable {
        public let row: Row
        /// The longest chain of transfers behind the notes (hops since issue); nil without notes.
        public let chainLength: Int?
        /// The other side's key id, as screens show keys.
        public let counterpartyKey: String?
        /// The issuer keys (key ids) that signed the notes involved: the root of the proof.
        public let issuerKeys: [String]
        /// When the receipt was signed; nil while none is held.
        public let receiptAt: Timestamp?
        public let settlement: HistoryDetail.Settlement
        /// "Settled", "Waiting to be redeemed", …
        public let settlementText: String
        /// The issuer's fraud case numbers touching this line (empty: none).
        public let fraudCases: [Int64]
        /// The kinds of double spend involved ("proof_held", "fraud_recovery", …).
        public let fraudKinds: [String]
        public let journalEntries: Int
        /// `receiptAt` as a date, for the view to format; nil while no receipt is held.
        public var receiptDate: Date? { receiptAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    }

    public let wallet: Wallet
    public var filter: Filter = .all
    /// All lines observed, newest first.
    public private(set) var entries: [HistoryEntry] = []
    /// The open detail sheet, if any.
    public private(set) var detail: Detail?
    /// Why the history or a detail could not be read.
    public private(set) var problem: String?
    /// Whether a pull-to-refresh sync is running.
    public private(set) var isRefreshing = false
    /// Why the last pull-to-refresh did not sync; cleared by the next one that does.
    public private(set) var refreshProblem: String?

    private let clock: any AppClock
    private let runSync: HomeModel.SyncRunner?
    private var task: Task<Void, Never>?

    /// - Parameters:
    ///   - wallet: the wallet whose history is shown, observed for changes.
    ///   - clock: the app's clock ("x minutes ago").
    ///   - runSync: the app's one sync (`AppModel.sync`), run by pull-to-refresh; nil where
    ///     there is no login (pull-to-refresh then says so).
    public init(wallet: Wallet, clock: any AppClock = SystemClock(), runSync: HomeModel.SyncRunner? = nil) {
        self.wallet = wallet
        self.clock = clock
        self.runSync = runSync
    }

    // MARK: What the screen shows

    /// The chips with their counts.
    public var counts: [Filter: Int] {
        Dictionary(uniqueKeysWithValues: Filter.allCases.map { f in (f, entries.filter(f.includes).count) })
    }

    /// The rows under the selected chip, newest first.
    public var rows: [Row] {
        let now = clock.now()
        return entries.filter(filter.includes).map { Self.row($0, now: now) }
    }

    /// The empty state's text, when the selected chip has no rows.
    public var emptyText: String? {
        guard rows.isEmpty else { return nil }
        return filter.emptyText
    }

    // MARK: Lifecycle

    /// The screen appeared: observe the wallet's history.
    public func appear() {
        guard task == nil else { return }
        let wallet = self.wallet
        task = Task { [weak self] in
            do {
                for try await snapshot in wallet.snapshots(recent: Wallet.maxSnapshotHistory) {
                    guard let self else { return }
                    self.entries = snapshot.recent
                }
            } catch {
                self?.problem = localized("history.readFailed", "The history could not be read (%@).", ErrorText.message(error))
            }
        }
    }

    public func disappear() {
        task?.cancel()
        task = nil
    }

    /// A tap on a row: reads the line's proof off the main actor and opens the detail.
    public func open(_ id: Int64) async {
        do {
            guard let found = try await AsyncWallet(wallet).historyDetail(id) else {
                problem = localized("history.entryGone", "That transaction is no longer in the wallet.")
                return
            }
            detail = Self.detail(found, now: clock.now())
        } catch {
            problem = localized("history.entryReadFailed", "The transaction could not be read (%@).", ErrorText.message(error))
        }
    }

    public func closeDetail() { detail = nil }

    /// Pull-to-refresh: runs (or joins) the app's sync, which redeems, refreshes and settles;
    /// the rows follow through the wallet's observation, not through this call.
    public func refresh() async {
        guard !isRefreshing else { return }
        guard let runSync else {
            refreshProblem = localized(
                "history.notLoggedIn", "Not logged in: log in to sync. Payments made offline are listed already.")
            return
        }
        isRefreshing = true
        defer { isRefreshing = false }
        refreshProblem =
            await runSync() == nil
            ? localized("history.syncFailed", "Sync failed; check the connection and pull to try again.") : nil
    }

    // MARK: Building rows

    static func row(_ e: HistoryEntry, now: Timestamp) -> Row {
        let incoming = ![.sent, .charged].contains(e.direction)
        // A currency this app does not know: the amount in minor units with its code, as stored.
        let money =
            Currency(e.currency).map { MoneyText.text(e.amount, currency: $0) }
            ?? localized("money.amount", "%1$@ %2$@", String(e.amount), e.currency)
        let amountText = incoming ? localized("history.amountIn", "+%@", money) : localized("history.amountOut", "−%@", money)
        return Row(
            id: e.id, direction: e.direction, counterparty: e.counterparty,
            relativeTime: RelativeTime.ago(now > e.createdAt ? now - e.createdAt : 0), createdAt: e.createdAt,
            method: methodBadge(e), amountText: amountText, amount: e.amount, status: e.status,
            error: e.status == .failed ? (e.error ?? localized("history.failed", "Failed")) : e.error)
    }

    static func methodBadge(_ e: HistoryEntry) -> String {
        switch PaymentMethod(rawValue: e.method) {
        case .qr: localized("history.methodQR", "QR")
        case .bluetooth: localized("history.methodBluetooth", "Bluetooth")
        case .tcp: localized("history.methodNearby", "Nearby")
        case .online: localized("history.methodOnline", "Online")
        // A method this app does not know: its stored name, as recorded.
        case nil: e.online ? localized("history.methodOnline", "Online") : e.method.capitalized
        }
    }

    static func detail(_ d: HistoryDetail, now: Timestamp) -> Detail {
        let settlementText: String =
            switch d.settlement {
            case .pending: localized("history.settlementPending", "Waiting to be redeemed at the next sync")
            case .settled: localized("history.settlementSettled", "Settled in the account")
            case .spentOnward:
                localized("history.settlementSpentOnward", "Paid onward before redemption; the next holder settles it")
            case .confirmedByIssuer: localized("history.settlementConfirmed", "Confirmed by the issuer (the payee redeemed it)")
            case .expiredRefunded: localized("history.settlementRefunded", "Expired unredeemed; refunded to the account")
            case .none: localized("history.settlementNone", "Nothing to settle here; the payee redeems it")
            }
        return Detail(
            row: row(d.entry, now: now), chainLength: d.hops.max(), counterpartyKey: d.counterpartyKey.map { "\($0)" },
            issuerKeys: d.issuerKeys.map { "\($0)" }, receiptAt: d.receiptReceivedAt, settlement: d.settlement,
            settlementText: settlementText,
            fraudCases: Array(Set(d.fraud.flatMap(\.caseIDs))).sorted(), fraudKinds: d.fraud.map(\.kind),
            journalEntries: d.journal.count)
    }
}
