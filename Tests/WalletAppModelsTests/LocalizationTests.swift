import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletTestSupport

/// The app's texts in every language of its String Catalog: each key the models and views use
/// is there in English, French and German, the models fill the translated sentences with
/// their values (amounts in the language's own decimal separator), counts pick the language's
/// plural form, and no shown text is glued together from translated pieces.
@Suite struct LocalizationTests {
    static let languages = ["en", "fr", "de"]
    static let root = StringCatalogLocalizer.catalogURL.deletingLastPathComponent().deletingLastPathComponent()

    /// Every `.swift` file under `folder` of the repository, with its text.
    static func sources(_ folder: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        let paths = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The keys the models pass to `localized(…)` and the literals the views localize.
    static func usedKeys() throws -> [String: String] {
        var keys: [String: String] = [:]
        for (path, text) in try sources("Sources/Wallet/WalletAppModels") {
            for match in text.matches(of: /localized\(\s*"([^"\\]+)"/) { keys[String(match.1)] = path }
        }
        let viewCall =
            /(?:^|[^\w.])\.?(?:Text|Button|Label|Toggle|TextField|SecureField|Section|Picker|LabeledContent|ProgressView|Link|ContentUnavailableView|navigationTitle|accessibilityLabel|accessibilityHint|accessibilityValue|confirmationDialog|alert|help|FormTextField|CurrencyField|FieldTitle|BusyLabel|messageAlert|SummaryRow|row)\(\s*"((?:[^"\\\n]|\\.)*)"|(?:title|caption|prompt):\s*"((?:[^"\\\n]|\\.)*)"/
        for (path, text) in try sources("App/Sources") {
            let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.firstRange(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
                .joined(separator: "\n")
            for match in code.matches(of: viewCall) {
                guard let literal = match.1.map(String.init) ?? match.2.map(String.init) else { continue }
                guard literal.contains(where: \.isLetter), !literal.contains("\\(") else { continue }
                keys[literal.replacingOccurrences(of: "\\\"", with: "\"")] = path
            }
        }
        return keys
    }

    @Test func everyKeyTheModelsAndViewsUseIsTranslatedInEveryLanguage() throws {
        let catalog = try StringCatalogLocalizer.catalog()
        let keys = try Self.usedKeys()
        #expect(keys.count > 200, "the scan found the sources' texts")
        for (key, path) in keys.sorted(by: { $0.key < $1.key }) {
            let localizations = catalog[key]?["localizations"] as? [String: Any]
            for language in Self.languages {
                #expect(localizations?[language] != nil, "\(path): \"\(key)\" has no \(language) text")
            }
        }
    }

    @Test func noModelTextIsGluedFromTranslatedPieces() throws {
        for (path, text) in try Self.sources("Sources/Wallet/WalletAppModels") {
            #expect(
                text.firstMatch(of: /\+\s*localized\(|\\\(\s*localized\(/) == nil,
                "\(path) joins a localized text to another piece")
            #expect(
                text.firstMatch(of: /localized\([^()]*(\([^()]*\)[^()]*)*\)\s*\+/) == nil,
                "\(path) joins a localized text to another piece")
        }
    }

    @Test func amountsFollowTheLanguagesDecimalSeparator() throws {
        let eur = try #require(Currency("EUR"))
        #expect(MoneyText.text(1_250, currency: eur) == "12.50 EUR")
        try Localization.withLocalizer(StringCatalogLocalizer(language: "fr", locale: "fr_FR")) {
            #expect(MoneyText.text(1_250, currency: eur) == "12,50 EUR")
            #expect(MoneyText.text(signed: -300, currency: eur) == "−3,00 EUR")
            #expect(MoneyText.spoken(1_250, currency: eur) == "12,50 euro")
        }
        try Localization.withLocalizer(StringCatalogLocalizer(language: "de", locale: "de_DE")) {
            #expect(MoneyText.text(1_250, currency: eur) == "12,50 EUR")
        }
        // Money stays exact: no grouping, no rounding, whatever the locale.
        try Localization.withLocalizer(StringCatalogLocalizer(language: "de", locale: "de_CH")) {
            #expect(MoneyText.number(123_456_789, currency: eur).filter(\.isNumber) == "123456789")
        }
    }

    @Test func alertsAreWholeTranslatedSentencesWithTheirValues() throws {
        let eur = try #require(Currency("EUR"))
        let fraud = WalletAlert.fraud(amount: 2_500, currency: eur, caseReference: "case-7")
        #expect(fraud.title == "Double spend detected")
        try Localization.withLocalizer(StringCatalogLocalizer(language: "fr", locale: "fr_FR")) {
            #expect(fraud.title == "Double dépense détectée")
            #expect(fraud.message.contains("25,00 EUR") && fraud.message.contains("case-7"), "\(fraud.message)")
            #expect(!fraud.message.contains("double spend"), "French, not English: \(fraud.message)")
        }
        try Localization.withLocalizer(StringCatalogLocalizer(language: "de", locale: "de_DE")) {
            let expiring = WalletAlert.expiring(amount: 1_000, currency: eur, expiresAt: 1_800_000_000)
            let text = expiring.message(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
            #expect(text.contains("10,00 EUR") && text.contains("9:00"), "\(text)")
        }
    }

    @Test func countsTakeTheLanguagesPluralForm() throws {
        // French counts 0 as singular, English and German do not.
        for (language, locale) in [("en", "en_US"), ("fr", "fr_FR"), ("de", "de_DE")] {
            let localizer = try StringCatalogLocalizer(language: language, locale: locale)
            let texts = [0, 1, 2].map { localizer.plural(forKey: "history.transfersSinceIssue", count: $0) ?? "" }
            #expect(texts.allSatisfy { !$0.isEmpty }, "\(language): \(texts)")
            #expect(texts[0].hasPrefix("0 ") && texts[1].hasPrefix("1 ") && texts[2].hasPrefix("2 "))
            if language == "fr" {
                #expect(
                    texts[0].dropFirst(2) == texts[1].dropFirst(2)
                        && texts[1] != texts[2].replacingOccurrences(of: "2", with: "1"))
            } else {
                #expect(texts[0].dropFirst(2) == texts[2].dropFirst(2) && texts[1].dropFirst(2) != texts[2].dropFirst(2))
            }
        }
    }

    @Test func aFormatFillsPositionsInAnyOrderAndNeverCrashesOnABadTranslation() {
        #expect(PlaceholderFormat.fill("%2$@ zahlt %1$@", with: ["12,50 EUR", "Bob"]) == "Bob zahlt 12,50 EUR")
        #expect(PlaceholderFormat.fill("%@ and %@", with: ["a", "b"]) == "a and b")
        #expect(PlaceholderFormat.fill("%1$@, %1$@", with: ["x"]) == "x, x")
        #expect(PlaceholderFormat.fill("50%% of %@", with: ["y"]) == "50% of y")
        #expect(PlaceholderFormat.fill("%lld notes", with: [], count: 3) == "3 notes")
        // A translation that names a value that is not there shows a gap, not a crash.
        #expect(PlaceholderFormat.fill("%3$@ left", with: ["a"]) == " left")
        #expect(PlaceholderFormat.fill("100%", with: []) == "100%")
        #expect(PlaceholderFormat.fill("%q", with: []) == "%q")
    }
}

/// A history row read in German, from a real wallet's history: the row words and
/// the VoiceOver sentence come out whole, with the plural of the detail's transfer count.
@MainActor
@Suite struct LocalizedHistoryTests {
    @Test func aRowReadsAsOneSentenceInGerman() async throws {
        let german = try StringCatalogLocalizer(language: "de", locale: "de_DE")
        try await HistoryRowTextTests.withAliceHistory { history in
            let sent = try #require(history.rows.first { $0.direction == .sent })
            await history.open(sent.id)
            // The row's amount and age were written when the history stream delivered it, in
            // the language in effect there; the words around them follow the one asked here.
            try Localization.withLocalizer(german) {
                #expect(sent.directionText == german.format(forKey: "history.direction.sent"))
                let format = try #require(german.format(forKey: "history.summary.outgoing"))
                let expected = PlaceholderFormat.fill(
                    format,
                    with: [
                        sent.directionText, "Bob", String(sent.amountText.dropFirst()), sent.statusText, sent.method,
                        sent.relativeTime,
                    ])
                #expect(sent.accessibilitySummary == expected && !expected.contains(" to "), "\(sent.accessibilitySummary)")
                #expect(history.detail?.chainText == german.plural(forKey: "history.transfersSinceIssue", count: 1))
            }
        }
    }
}
