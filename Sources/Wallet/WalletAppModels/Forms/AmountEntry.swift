import Foundation
import OfflineNotes

/// The state of one amount field: the text typed, what it parses to, and everything the screen
/// draws from it (the green/red border, the quick-amount highlight, "Remaining" or
/// "Insufficient balance"). A value type: the screen model that holds it is what is observed.
public struct AmountEntry: Equatable, Sendable {
    /// The quick-amount buttons, in whole currency units.
    public static let quickAmounts: [UInt64] = [10, 25, 50, 100]

    /// How the field's border is drawn.
    public enum Validity: Equatable, Sendable {
        /// Nothing typed: no colour, and no error shown before the person has typed anything.
        case neutral
        /// Green: the amount can be used.
        case valid(UInt64)
        /// Red, with the message to show under the field.
        case invalid(AmountEntryError)
    }

    /// The line under the field given what is available.
    public enum BalanceLine: Equatable, Sendable {
        /// "Remaining: x" after this amount (all of it while the amount is not valid).
        case remaining(UInt64)
        /// "Insufficient balance": the amount is above what is available by `shortBy`.
        case insufficient(shortBy: UInt64)
    }

    public let currency: Currency
    /// The separator the field shows when it writes an amount (a quick amount): the locale's.
    public let decimalSeparator: Character
    /// The largest amount accepted (spendable, largest payment, holding limit); nil: only the
    /// protocol's 2^63 − 1.
    public var maximum: UInt64?
    /// What the person typed, exactly.
    public var text: String

    /// An empty field for `currency`; the separator is the locale's ("." when it has none or
    /// one that is neither "." nor ",").
    public init(currency: Currency, locale: Locale = .current, maximum: UInt64? = nil, text: String = "") {
        let separator = locale.decimalSeparator.flatMap(\.first).flatMap { AmountParser.separators.contains($0) ? $0 : nil }
        self.init(currency: currency, decimalSeparator: separator ?? ".", maximum: maximum, text: text)
    }

    public init(currency: Currency, decimalSeparator: Character, maximum: UInt64? = nil, text: String = "") {
        self.currency = currency
        self.decimalSeparator = decimalSeparator
        self.maximum = maximum
        self.text = text
    }

    /// The parse of `text` against the currency and the maximum.
    public var result: Result<UInt64, AmountEntryError> {
        Result { () throws(AmountEntryError) in try AmountParser.parse(text, currency: currency, maximum: maximum) }
    }

    /// The amount in minor units, when the text is a usable amount.
    public var minorUnits: UInt64? { try? result.get() }

    /// The error to show, if any (none while the field is empty).
    public var error: AmountEntryError? { if case .invalid(let e) = validity { e } else { nil } }

    public var validity: Validity {
        switch result {
        case .success(let value): .valid(value)
        case .failure(.empty): .neutral
        case .failure(let e): .invalid(e)
        }
    }

    /// The quick amount whose value the field holds now (highlighted), if any. Derived from the
    /// value, so typing "25.00" highlights 25 and editing it away clears the highlight.
    public var selectedQuickAmount: UInt64? {
        guard let value = minorUnits else { return nil }
        return Self.quickAmounts.first { AmountParser.minorUnits(ofMajor: $0, currency: currency) == value }
    }

    /// Tapping a quick amount: the field's text becomes that amount. It REPLACES what was there,
    /// never adds to it (the original product's bug).
    public mutating func applyQuickAmount(_ major: UInt64) {
        guard let minor = AmountParser.minorUnits(ofMajor: major, currency: currency) else { return }
        text = AmountParser.format(minor, currency: currency, separator: decimalSeparator)
    }

    /// Sets the field to `minor` units, formatted with the locale's separator (a scanned request's amount).
    public mutating func set(minorUnits minor: UInt64) {
        text = AmountParser.format(minor, currency: currency, separator: decimalSeparator)
    }

    /// "Remaining" or "Insufficient balance" given `available` minor units.
    public func balanceLine(available: UInt64) -> BalanceLine {
        // The raw parse without the maximum: an amount refused only for being over the maximum
        // still says by how much it is short.
        guard let value = try? AmountParser.parse(text, currency: currency) else { return .remaining(available) }
        return value > available ? .insufficient(shortBy: value - available) : .remaining(available - value)
    }

    /// The usage bar's fill in thousandths of `available` (0…1000; 1000 only when the amount uses
    /// all of it or more), integer arithmetic only.
    public func usagePermille(available: UInt64) -> Int {
        guard let value = try? AmountParser.parse(text, currency: currency), available > 0 else { return 0 }
        guard value < available else { return 1000 }
        // value < available ≤ 2^63 − 1, so value × 1000 can overflow UInt64; divide first
        // when it would.
        let (product, overflow) = value.multipliedReportingOverflow(by: 1000)
        return Int(min(999, overflow ? value / (available / 1000) : product / available))
    }
}
