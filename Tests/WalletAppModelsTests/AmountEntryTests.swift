import Foundation
import OfflineNotes
import Testing
import WalletAppModels

let eur = Currency("EUR")!
let jpy = Currency("JPY")!
let kwd = Currency("KWD")!

@Suite struct AmountParserTests {
    func parse(_ text: String, _ currency: Currency = eur, maximum: UInt64? = nil) -> Result<UInt64, AmountEntryError> {
        Result { () throws(AmountEntryError) in try AmountParser.parse(text, currency: currency, maximum: maximum) }
    }

    @Test func acceptsBothSeparatorsAndPartialTyping() {
        #expect(parse("12") == .success(1200))
        #expect(parse("12.5") == .success(1250))
        #expect(parse("12,5") == .success(1250))
        #expect(parse("12,05") == .success(1205))
        #expect(parse(",5") == .success(50))
        #expect(parse("12.") == .success(1200), "a trailing separator while typing")
        #expect(parse("  7.10 \n") == .success(710))
        #expect(parse("0012.30") == .success(1230))
        #expect(parse("1234", jpy) == .success(1234))
        #expect(parse("1.234", kwd) == .success(1234))
    }

    @Test func typedErrors() {
        #expect(parse("") == .failure(.empty))
        #expect(parse("   ") == .failure(.empty))
        #expect(parse(".") == .failure(.notANumber))
        #expect(parse("-5") == .failure(.notANumber))
        #expect(parse("+5") == .failure(.notANumber))
        #expect(parse("1 000") == .failure(.notANumber))
        #expect(parse("12€") == .failure(.notANumber))
        #expect(parse("١٢") == .failure(.notANumber), "Arabic-Indic digits are not ASCII")
        #expect(parse("1e3") == .failure(.notANumber))
        #expect(parse("1,000.50") == .failure(.moreThanOneSeparator))
        #expect(parse("1..5") == .failure(.moreThanOneSeparator))
        #expect(parse("12.345") == .failure(.tooManyDecimals(allowed: 2, currency: eur)))
        #expect(parse("12.500") == .failure(.tooManyDecimals(allowed: 2, currency: eur)), "even trailing zeros")
        #expect(parse("12.5", jpy) == .failure(.tooManyDecimals(allowed: 0, currency: jpy)))
        #expect(parse("1.2345", kwd) == .failure(.tooManyDecimals(allowed: 3, currency: kwd)))
        #expect(parse("0") == .failure(.zero))
        #expect(parse("0.00") == .failure(.zero))
        #expect(parse(",0") == .failure(.zero))
        #expect(parse("10.01", maximum: 1000) == .failure(.tooMuch(maximum: 1000, currency: eur)))
        #expect(parse("10.00", maximum: 1000) == .success(1000), "the maximum itself is allowed")
    }

    @Test func theProtocolCeilingIsExact() {
        // 2^63 − 1 minor units = 92233720368547758.07 EUR.
        #expect(parse("92233720368547758.07") == .success(UInt64(Int64.max)))
        #expect(parse("92233720368547758.08") == .failure(.tooLarge))
        #expect(parse("9223372036854775807", jpy) == .success(UInt64(Int64.max)))
        #expect(parse("9223372036854775808", jpy) == .failure(.tooLarge))
        #expect(parse("99999999999999999999999", jpy) == .failure(.tooLarge), "past UInt64 too, no trap")
    }

    @Test func errorMessagesSayWhatToDo() {
        #expect(AmountEntryError.tooManyDecimals(allowed: 2, currency: eur).description.contains("at most 2 digits"))
        #expect(AmountEntryError.tooManyDecimals(allowed: 0, currency: jpy).description.contains("whole number"))
        #expect(AmountEntryError.tooMuch(maximum: 4250, currency: eur).description.contains("42.50 EUR"))
    }

    @Test func formatUsesTheLocaleSeparator() {
        #expect(AmountParser.format(1250, currency: eur, separator: ",") == "12,50")
        #expect(AmountParser.format(5, currency: eur) == "0.05")
        #expect(AmountParser.format(1234, currency: jpy, separator: ",") == "1234")
    }
}

@Suite struct AmountEntryTests {
    @Test func separatorComesFromTheLocale() {
        #expect(AmountEntry(currency: eur, locale: Locale(identifier: "de_DE")).decimalSeparator == ",")
        #expect(AmountEntry(currency: eur, locale: Locale(identifier: "en_US")).decimalSeparator == ".")
    }

    @Test func validityDrivesTheBorder() {
        var entry = AmountEntry(currency: eur, decimalSeparator: ".", maximum: 5000)
        #expect(entry.validity == .neutral, "no red border before anything is typed")
        #expect(entry.error == nil)
        entry.text = "12.3"
        #expect(entry.validity == .valid(1230))
        #expect(entry.minorUnits == 1230)
        entry.text = "12.345"
        #expect(entry.validity == .invalid(.tooManyDecimals(allowed: 2, currency: eur)))
        #expect(entry.minorUnits == nil)
        entry.text = "60"
        #expect(entry.error == .tooMuch(maximum: 5000, currency: eur))
        entry.maximum = nil
        #expect(entry.validity == .valid(6000))
    }

    @Test func quickAmountsReplaceNeverAdd() {
        var entry = AmountEntry(currency: eur, decimalSeparator: ",")
        entry.text = "7,5"
        entry.applyQuickAmount(25)
        #expect(entry.text == "25,00")
        #expect(entry.minorUnits == 2500)
        entry.applyQuickAmount(10)
        #expect(entry.minorUnits == 1000, "10 replaces 25, it does not make 35")
        #expect(entry.selectedQuickAmount == 10)
        entry.text = "10,5"
        #expect(entry.selectedQuickAmount == nil, "editing the amount clears the highlight")
        entry.text = "50"
        #expect(entry.selectedQuickAmount == 50, "typing a quick amount's value highlights it")
        var yen = AmountEntry(currency: jpy, decimalSeparator: ".")
        yen.applyQuickAmount(100)
        #expect(yen.text == "100")
        #expect(yen.minorUnits == 100)
    }

    @Test func balanceLineAndUsageBar() {
        var entry = AmountEntry(currency: eur, decimalSeparator: ".", maximum: 4000)
        #expect(entry.balanceLine(available: 4000) == .remaining(4000))
        #expect(entry.usagePermille(available: 4000) == 0)
        entry.text = "10"
        #expect(entry.balanceLine(available: 4000) == .remaining(3000))
        #expect(entry.usagePermille(available: 4000) == 250)
        entry.text = "40"
        #expect(entry.balanceLine(available: 4000) == .remaining(0))
        #expect(entry.usagePermille(available: 4000) == 1000)
        entry.text = "50"
        #expect(entry.balanceLine(available: 4000) == .insufficient(shortBy: 1000), "over the maximum still says by how much")
        #expect(entry.usagePermille(available: 4000) == 1000)
        #expect(entry.usagePermille(available: 0) == 0)
        entry.maximum = nil
        entry.text = "92233720368547758.06"
        #expect(entry.usagePermille(available: UInt64(Int64.max)) == 999, "no overflow near the ceiling")
    }
}
