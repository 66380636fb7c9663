import Foundation
import GRDB
import OfflineNotes

/// Everything a wallet screen shows, read in one database transaction so its parts agree:
/// balances, payments awaiting a receipt, the most recent history lines and the risk budget.
///
/// A value: two snapshots of an unchanged wallet are equal, which is what lets
/// `Wallet.snapshots(recent:)` emit only real changes.
public struct WalletSnapshot: Sendable, Equatable {
    /// The balances, partitioned as `Balance` documents.
    public let balance: Balance
    /// Payments signed but not yet receipted, oldest first: what to resend or resolve.
    public let pending: [OutgoingPayment]
    /// The newest history lines, newest first (at most the `recent` asked for).
    public let recent: [HistoryEntry]
    /// When the wallet's data last changed, by the wallet's clock: the latest `updated_at` of
    /// its note states, payments and history lines; nil for a wallet that never held anything.
    public let lastChange: Timestamp?

    /// How much more the wallet may accept offline before it must redeem online.
    public var riskBudgetLeft: UInt64 { balance.riskBudgetLeft }
    /// The whole risk budget: the issuer's offline holding limit.
    public var riskBudget: UInt64 { balance.holdingLimit }

    public init(balance: Balance, pending: [OutgoingPayment], recent: [HistoryEntry], lastChange: Timestamp?) {
        self.balance = balance
        self.pending = pending
        self.recent = recent
        self.lastChange = lastChange
    }
}

extension Wallet {
    /// The most history lines a snapshot carries; more belongs to `history(_:)`'s paging.
    public static let maxSnapshotHistory = 1000

    /// The wallet's state now, with the `recent` newest history lines (0...1000).
    /// Throws `notConfigured` until `installTrust` has given the wallet its currency and limits.
    public func snapshot(recent: Int = 20) throws(WalletError) -> WalletSnapshot {
        let now = env.now()
        return try read { db in try snapshot(db, recent: recent, now: now) }
    }

    /// The tables a snapshot reads: a commit touching none of them cannot change it.
    static let snapshotTables = ["setting", "note_state", "outgoing_payment", "history"]

    func snapshot(_ db: Database, recent: Int, now: Timestamp) throws -> WalletSnapshot {
        let balance = try balanceLines(db, now: now)
        let pending = try Data.fetchAll(
            db, sql: "SELECT request_nonce FROM outgoing_payment WHERE status = 'signed' ORDER BY created_at, id"
        ).compactMap { try outgoing(db, nonce: Nonce(uncheckedBytes: Array($0))) }
        let lines = try Row.fetchAll(
            db, sql: "SELECT * FROM history ORDER BY created_at DESC, id DESC LIMIT ?",
            arguments: [max(0, min(recent, Self.maxSnapshotHistory))]
        ).map(Self.historyEntry)
        let last = try Int64.fetchOne(
            db,
            sql: """
                SELECT MAX(t) FROM (
                  SELECT MAX(updated_at) AS t FROM note_state
                  UNION ALL SELECT MAX(updated_at) FROM outgoing_payment
                  UNION ALL SELECT MAX(updated_at) FROM history)
                """)
        return WalletSnapshot(
            balance: balance, pending: pending, recent: lines, lastChange: last.map { Timestamp(clamping: $0) })
    }
}
