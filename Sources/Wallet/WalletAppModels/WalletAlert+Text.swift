import Foundation
import OfflineNotes

/// What the in-app alert for a `WalletAlert` says (the title, the message, its one action), so
/// the view draws text the model wrote, the same words the notification uses.
extension WalletAlert: Identifiable {
    /// Stable for one alert: the same alert posted again has the same id.
    public var id: String {
        switch self {
        case .fraud(let amount, let currency, let reference): "fraud:\(reference):\(amount)\(currency)"
        case .expiring(let amount, let currency, let at): "expiring:\(at):\(amount)\(currency)"
        case .expired(let count, let amount, let currency): "expired:\(count):\(amount)\(currency)"
        }
    }

    public var title: String {
        switch self {
        case .fraud: "Double spend detected"
        case .expiring: "Notes expire soon"
        case .expired: "Notes expired"
        }
    }

    /// The body; the expiry time of `.expiring` is `expiryDate`, which the view formats in the
    /// person's locale and time zone.
    public var message: String {
        switch self {
        case .fraud(let amount, let currency, let reference):
            "The issuer caught a double spend involving \(Self.money(amount, currency)) of this wallet's notes (\(reference)). Quote \(reference) to support."
        case .expiring(let amount, let currency, _):
            "\(Self.money(amount, currency)) of notes expire soon. Connect to the internet and sync to refresh them."
        case .expired(_, let amount, let currency):
            "\(Self.money(amount, currency)) of notes expired before they were refreshed. Sync while online to have them refunded to your account."
        }
    }

    /// When the notes of an `.expiring` alert expire; nil for the others.
    public var expiryDate: Date? {
        if case .expiring(_, _, let at) = self { Date(timeIntervalSince1970: TimeInterval(at)) } else { nil }
    }

    /// Whether a sync is what helps (expiring notes are refreshed, expired ones refunded), so
    /// the alert offers "Sync now".
    public var suggestsSync: Bool {
        if case .fraud = self { false } else { true }
    }

    /// The amount at stake, for VoiceOver and the alert's amount line ("25.00 EUR").
    public var amountText: String {
        switch self {
        case .fraud(let amount, let currency, _), .expiring(let amount, let currency, _), .expired(_, let amount, let currency):
            Self.money(amount, currency)
        }
    }

    static func money(_ amount: UInt64, _ currency: Currency) -> String { MoneyText.text(amount, currency: currency) }
}
