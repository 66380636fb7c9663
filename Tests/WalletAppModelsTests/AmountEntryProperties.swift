import Foundation
import OfflineNotes
import PropertyBased
import Testing
import WalletAppModels

/// Uniformly one of `values` (non-empty), never nil.
func pick<T: Sendable>(_ values: [T]) -> Generator<T, Shrink.Integer<Int>> {
    Gen.int(in: 0...(values.count - 1)).map { values[$0] }
}

@Suite struct AmountEntryProperties {
    static let currencies = pick(["EUR", "JPY", "KWD"].map { Currency($0)! })
    static let separators = pick([Character("."), Character(",")])

    /// Every valid minor amount formats to text that parses back to it, with either separator.
    @Test func formatThenParseRoundTrips() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 1...Amount.max), Self.currencies, Self.separators) {
            minor, currency, separator in
            let text = AmountParser.format(minor, currency: currency, separator: separator)
            let parsed = Result { () throws(AmountEntryError) in try AmountParser.parse(text, currency: currency) }
            #expect(parsed == .success(minor), "\(text)")
        }
    }

    /// Small amounts too, where the leading zeros of the fraction matter ("0.05").
    @Test func smallAmountsRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 1...100_000), Self.currencies) { minor, currency in
            let text = AmountParser.format(minor, currency: currency)
            #expect((try? AmountParser.parse(text, currency: currency)) == minor, "\(text)")
        }
    }

    /// One digit more after the separator than the currency has is always refused.
    @Test func neverAcceptsMoreDigitsThanTheCurrencyHas() async {
        let digits = pick(Array("0123456789"))
        await propertyCheck(
            count: 300, input: digits.array(of: 1...6), digits.array(of: 0...3), Self.currencies, Self.separators
        ) { whole, extra, currency, separator in
            let fraction = String(repeating: "1", count: currency.minorUnitDigits + 1) + String(extra)
            let text = String(whole) + String(separator) + fraction
            #expect(throws: AmountEntryError.tooManyDecimals(allowed: currency.minorUnitDigits, currency: currency)) {
                try AmountParser.parse(text, currency: currency)
            }
        }
    }

    /// Any string of digits and separators parses to exactly the value integer arithmetic on
    /// its digits gives, or to the typed error an independent check predicts; never a crash.
    @Test func digitsAndSeparatorsParseExactlyOrFailTyped() async {
        let chars = pick(Array("0123456789.,0000"))
        await propertyCheck(count: 1000, input: chars.array(of: 0...28), Self.currencies) { chars, currency in
            let text = String(chars)
            let actual = Result { () throws(AmountEntryError) in try AmountParser.parse(text, currency: currency) }
            #expect(actual == Self.oracle(text, currency: currency), "\(text) \(currency)")
        }
    }

    /// The expected outcome, computed on decimal strings (no UInt64 arithmetic to share bugs with).
    static func oracle(_ text: String, currency: Currency) -> Result<UInt64, AmountEntryError> {
        guard !text.isEmpty else { return .failure(.empty) }
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "," })
        guard parts.count <= 2 else { return .failure(.moreThanOneSeparator) }
        let whole = String(parts[0])
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard !(whole.isEmpty && fraction.isEmpty) else { return .failure(.notANumber) }
        let digits = currency.minorUnitDigits
        guard fraction.count <= digits else { return .failure(.tooManyDecimals(allowed: digits, currency: currency)) }
        let all = whole + fraction + String(repeating: "0", count: digits - fraction.count)
        let significant = String(all.drop(while: { $0 == "0" }))
        let ceiling = "9223372036854775807"
        if significant.count > ceiling.count || (significant.count == ceiling.count && significant > ceiling) {
            return .failure(.tooLarge)
        }
        guard !significant.isEmpty else { return .failure(.zero) }
        return .success(UInt64(significant)!)
    }

    /// A quick amount replaces whatever was typed: the result depends only on the button.
    @Test func quickAmountsReplace() async {
        let chars = pick(Array("0123456789.,x"))
        await propertyCheck(
            count: 300, input: chars.array(of: 0...12), pick(AmountEntry.quickAmounts), Self.currencies
        ) { typed, quick, currency in
            var entry = AmountEntry(currency: currency, decimalSeparator: ",", text: String(typed))
            entry.applyQuickAmount(quick)
            var scale: UInt64 = 1
            for _ in 0..<currency.minorUnitDigits { scale *= 10 }
            #expect(entry.minorUnits == quick * scale)
            #expect(entry.selectedQuickAmount == quick)
        }
    }
}

/// The rest of the amount-entry rules: "too much" against a screen's
/// maximum, anything but ASCII digits refused, whitespace around ignored, the balance line exact.
extension AmountEntryProperties {
    /// With a maximum (what Send may spend, what Buy may buy), an amount parses exactly when it
    /// is at most the maximum; above it the error names the maximum. Amounts are drawn around
    /// the maximum so the boundary is hit every run.
    @Test func theMaximumIsExact() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 2...(Amount.max - 2)), Gen.int(in: -2...2), Self.currencies) {
            maximum, offset, currency in
            let minor = offset < 0 ? maximum - UInt64(-offset) : maximum + UInt64(offset)
            let text = AmountParser.format(minor, currency: currency)
            let parsed = Result { () throws(AmountEntryError) in
                try AmountParser.parse(text, currency: currency, maximum: maximum)
            }
            let expected: Result<UInt64, AmountEntryError> =
                minor <= maximum ? .success(minor) : .failure(.tooMuch(maximum: maximum, currency: currency))
            #expect(parsed == expected, "\(text) against \(maximum)")
        }
    }

    /// A sign, a letter, a space or grouping mark inside the number, another script's digit or
    /// separator — anywhere inside the digits — is "not a number", never a guess.
    @Test func foreignCharactersInsideAreNotANumber() async {
        let digits = pick(Array("0123456789"))
        let foreign = pick(Array("-+ eE'_$€٫١۲߃x") + [Character("\u{00A0}"), Character("\u{2009}"), Character("\u{FF11}")])
        await propertyCheck(count: 400, input: digits.array(of: 2...8), foreign, Gen.int(in: 1...7), Self.currencies) {
            digits, bad, position, currency in
            var chars = digits
            chars.insert(bad, at: min(position, chars.count - 1))
            let text = String(chars)
            #expect(throws: AmountEntryError.notANumber, "\(text.unicodeScalars.map { String($0.value, radix: 16) })") {
                try AmountParser.parse(text, currency: currency)
            }
        }
    }

    /// Whitespace around the amount (a paste, a trailing space) does not change its value.
    @Test func surroundingWhitespaceIsIgnored() async {
        let space = pick([" ", "\t", "\n", "\u{00A0}", "  "])
        await propertyCheck(count: 300, input: Gen.uint64(in: 1...100_000_000), space, space, Self.currencies) {
            minor, before, after, currency in
            let text = before + AmountParser.format(minor, currency: currency, separator: ",") + after
            #expect((try? AmountParser.parse(text, currency: currency)) == minor)
        }
    }

    /// "Remaining" and "Insufficient balance" are exact: remaining is available − amount, short
    /// by amount − available, whatever the maximum says.
    @Test func theBalanceLineIsExact() async {
        await propertyCheck(
            count: 500, input: Gen.uint64(in: 1...1_000_000_000), Gen.uint64(in: 0...1_000_000_000), Self.currencies
        ) {
            minor, available, currency in
            let entry = AmountEntry(
                currency: currency, decimalSeparator: ".", maximum: available,
                text: AmountParser.format(minor, currency: currency))
            let expected: AmountEntry.BalanceLine =
                minor > available ? .insufficient(shortBy: minor - available) : .remaining(available - minor)
            #expect(entry.balanceLine(available: available) == expected)
            #expect((entry.minorUnits != nil) == (minor <= available), "valid exactly when affordable")
        }
    }

    /// The field writes amounts with the locale's separator (when it is "." or ","), and what it
    /// writes reads back to the same value.
    @Test func quickAmountsUseTheLocaleSeparator() async {
        let locales = pick(["en_US", "de_DE", "fr_FR", "ja_JP", "pt_BR", "en_IN"].map { Locale(identifier: $0) })
        await propertyCheck(count: 200, input: locales, pick(AmountEntry.quickAmounts), Self.currencies) {
            locale, quick, currency in
            var entry = AmountEntry(currency: currency, locale: locale)
            entry.applyQuickAmount(quick)
            let expected =
                locale.decimalSeparator.flatMap(\.first).flatMap { AmountParser.separators.contains($0) ? $0 : nil } ?? "."
            #expect(entry.decimalSeparator == expected)
            #expect(currency.minorUnitDigits == 0 || entry.text.contains(expected), "\(entry.text) in \(locale.identifier)")
            #expect(entry.minorUnits == AmountParser.minorUnits(ofMajor: quick, currency: currency))
        }
    }
}
