import OfflineNotes

/// An alert the wallet raises while the person may not be looking at it.
public enum WalletAlert: Equatable, Sendable {
    /// The issuer caught a double spend involving this wallet's notes (a fraud case), with the
    /// amount at stake and the case's reference to quote to support.
    case fraud(amount: UInt64, currency: Currency, caseReference: String)
    /// Notes worth `amount` expire at `expiresAt` (warned 24 h and 1 h before): sync to refresh them.
    case expiring(amount: UInt64, currency: Currency, expiresAt: Timestamp)
    /// `count` notes worth `amount` expired before they were refreshed; syncing redeems them.
    case expired(count: Int, amount: UInt64, currency: Currency)
}

/// Local notifications for fraud and expiry. The app's implementation posts
/// UNNotificationRequests (and sets the badge to the expired count).
public protocol Notifier: Sendable {
    /// Shows `alert`. Posting the same alert twice may show it twice; callers decide when.
    func post(_ alert: WalletAlert) async
}
