import Foundation
import OfflineNotes

/// Why an amount a person typed cannot be used. Each message says what is wrong and what to do.
public enum AmountEntryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing typed yet.
    case empty
    /// Something other than the digits 0–9 and one decimal separator ("." or ","), or no digit at all.
    case notANumber
    /// More than one separator: "1,000.50" or "1.000" with a grouping separator. Refused rather
    /// than guessed, because "1,000" is one thousand in one locale and one in another.
    case moreThanOneSeparator
    /// More digits after the separator than the currency has (2 for EUR, 0 for JPY, 3 for KWD).
    case tooManyDecimals(allowed: Int, currency: Currency)
    /// Zero: a payment must move something.
    case zero
    /// Above the largest amount the protocol can carry (2^63 − 1 minor units).
    case tooLarge
    /// Above the maximum the screen allows (what can be spent, the largest payment, the holding limit).
    case tooMuch(maximum: UInt64, currency: Currency)

    public var description: String {
        switch self {
        case .empty: return localized("amount.empty", "Enter an amount.")
        case .notANumber: return localized("amount.notANumber", "Enter the amount with digits and at most one decimal separator.")
        case .moreThanOneSeparator:
            return localized(
                "amount.moreThanOneSeparator", "Use one decimal separator and no thousands separators, e.g. 1000.50.")
        case .tooManyDecimals(let allowed, let currency):
            guard allowed > 0 else {
                return localized("amount.noDecimals", "%@ amounts have no decimals; enter a whole number.", currency.code)
            }
            let digits = localized("amount.digits", count: allowed, one: "%lld digit", other: "%lld digits")
            return localized(
                "amount.tooManyDecimals", "%1$@ amounts have at most %2$@ after the separator.", currency.code, digits)
        case .zero: return localized("amount.zero", "Enter an amount above zero.")
        case .tooLarge:
            return localized("amount.tooLarge", "That amount is larger than any wallet can hold; enter a smaller one.")
        case .tooMuch(let maximum, let currency):
            return localized(
                "amount.tooMuch", "At most %@ here; enter a smaller amount.", MoneyText.text(maximum, currency: currency))
        }
    }
}

/// Decimal text to minor units and back, with integer arithmetic only (docs/design.md §2: money
/// never passes through floating point).
///
/// The rule for separators: the text is ASCII digits with at most one separator, and both "."
/// and "," are accepted as that decimal separator whatever the locale. A decimal pad shows only
/// the locale's separator, but pasted text and external keyboards bring the other one, and since
/// grouping separators are refused there is never a doubt which one is meant: "12,5" and "12.5"
/// both mean twelve and a half. A leading separator (",5") and a trailing one ("12." while the
/// person is still typing) are fine. Surrounding whitespace is ignored; signs, spaces inside
/// the number and non-ASCII digits are refused.
public enum AmountParser {
    /// The separators accepted as the decimal separator.
    public static let separators: Set<Character> = [".", ","]

    /// Parses `text` into minor units of `currency`; above `maximum` (when given) is `.tooMuch`.
    ///
    /// Errors are checked in the order a person fixes them: characters, separators, decimals,
    /// size, zero, then the maximum.
    public static func parse(
        _ text: String, currency: Currency, maximum: UInt64? = nil
    ) throws(AmountEntryError)
        -> UInt64
    {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        guard trimmed.allSatisfy({ $0.isASCIIDigit || separators.contains($0) }) else { throw .notANumber }
        let parts = trimmed.split(omittingEmptySubsequences: false, whereSeparator: { separators.contains($0) })
        guard parts.count <= 2 else { throw .moreThanOneSeparator }
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty) else { throw .notANumber }
        let digits = currency.minorUnitDigits
        guard fraction.count <= digits else { throw .tooManyDecimals(allowed: digits, currency: currency) }
        var value: UInt64 = 0
        for ch in whole + fraction + String(repeating: "0", count: digits - fraction.count) {
            guard let d = ch.wholeNumberValue else { throw .notANumber }
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(d))
            guard !o1, !o2, sum <= Amount.max else { throw .tooLarge }
            value = sum
        }
        guard value > 0 else { throw .zero }
        if let maximum, value > maximum { throw .tooMuch(maximum: maximum, currency: currency) }
        return value
    }

    /// Formats minor units for the amount field with `separator` ("12,50" for a "," locale);
    /// `parse` reads it back to the same value.
    public static func format(_ minor: UInt64, currency: Currency, separator: Character = ".") -> String {
        let text = Amount.format(minor, currency: currency)
        return separator == "." ? text : text.replacingDot(with: separator)
    }

    /// Minor units of `major` whole units (10 → 1000 for EUR), nil past `Amount.max`.
    public static func minorUnits(ofMajor major: UInt64, currency: Currency) -> UInt64? {
        var value = major
        for _ in 0..<currency.minorUnitDigits {
            let (m, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = m
        }
        return value <= Amount.max ? value : nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension String {
    fileprivate func replacingDot(with separator: Character) -> String {
        String(map { $0 == "." ? separator : $0 })
    }
}
