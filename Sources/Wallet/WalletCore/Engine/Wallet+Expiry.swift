import OfflineNotes

/// When the wallet's notes start to expire, for the app's expiry warnings.
public struct ExpiryOutlook: Sendable, Equatable {
    /// When the first held note expires; nil when the wallet holds none that is still valid.
    public let soonest: Timestamp?
    /// The value of held notes that expire by the deadline asked about.
    public let value: UInt64

    public init(soonest: Timestamp?, value: UInt64) {
        self.soonest = soonest
        self.value = value
    }
}

extension Wallet {
    /// The notes this wallet holds (available or received, restored ones included: a sync
    /// handles them all) that are still valid at `now`: when the first of them expires, and the
    /// value expiring by `deadline`. A sync before then refreshes or redeems them.
    public func expiryOutlook(now: Timestamp, by deadline: Timestamp) throws(WalletError) -> ExpiryOutlook {
        let held = try states().filter { ($0.status == .available || $0.status == .received) && $0.chain.note.expiresAt > now }
        let soonest = held.map(\.chain.note.expiresAt).min()
        let value = Amount.sum(held.filter { $0.chain.note.expiresAt <= deadline }.map(\.amount)) ?? Amount.max
        return ExpiryOutlook(soonest: soonest, value: value)
    }
}
