import Foundation
import OfflineNotes

extension AmountEntry {
    /// What keeps a form from using the amount, as its checklist says it.
    public enum Missing: Equatable, Sendable {
        /// Empty (nil) or not a usable amount (the entry's error says why).
        case amount(AmountEntryError?)
        /// Above what is available by `shortBy`.
        case funds(shortBy: UInt64)
    }

    /// The checklist line for the amount against `available` (the field's maximum), nil when it
    /// can be used. Shared by the forms that spend (Send, Withdraw), so they say the same.
    public func missing(available: UInt64) -> Missing? {
        switch result {
        case .success: nil
        case .failure(.tooMuch):
            if case .insufficient(let short) = balanceLine(available: available) { .funds(shortBy: short) } else { nil }
        case .failure(.empty): .amount(nil)
        case .failure(let e): .amount(e)
        }
    }
}

extension AmountEntry.BalanceLine {
    /// "Remaining: 12.50 EUR" or "Insufficient balance: 0.01 EUR short".
    public func text(currency: Currency) -> String {
        switch self {
        case .remaining(let left): localized("amount.remaining", "Remaining: %@", MoneyText.text(left, currency: currency))
        case .insufficient(let short):
            localized("amount.insufficient", "Insufficient balance: %@ short", MoneyText.text(short, currency: currency))
        }
    }
}
