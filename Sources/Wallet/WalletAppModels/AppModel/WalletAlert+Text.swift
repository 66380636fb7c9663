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
        case .fraud: localized("alert.fraud.title", "Double spend detected")
        case .expiring: localized("alert.expiring.title", "Notes expire soon")
        case .expired: localized("alert.expired.title", "Notes expired")
        }
    }

    /// The body; the expiry time of `.expiring` is `expiryDate`, which the view formats in the
    /// person's locale and time zone.
    public var message: String {
        switch self {
        case .fraud(let amount, let currency, let reference):
            localized(
                "alert.fraud.message",
                "The issuer caught a double spend involving %1$@ of this wallet's notes (%2$@). Quote %2$@ to support.",
                Self.money(amount, currency), reference)
        case .expiring(let amount, let currency, _):
            localized(
                "alert.expiring.message", "%@ of notes expire soon. Connect to the internet and sync to refresh them.",
                Self.money(amount, currency))
        case .expired(_, let amount, let currency):
            localized(
                "alert.expired.message",
                "%@ of notes expired before they were refreshed. Sync while online to have them refunded to your account.",
                Self.money(amount, currency))
        }
    }

    /// The body with the first expiry's time of day in the current language ("… First expiry:
    /// 14:05."), for the in-app alert; the notification, which the system dates, uses `message`.
    public func message(timeZone: TimeZone) -> String {
        guard let expiryDate else { return message }
        var style = Date.FormatStyle(date: .omitted, time: .shortened).locale(Localization.current.locale)
        style.timeZone = timeZone
        return localized("alert.expiring.messageWithTime", "%1$@ First expiry: %2$@.", message, expiryDate.formatted(style))
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
