import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletSync

/// A language given as a table: formats and plural variants by key; a key it lacks falls back
/// to the English the models carry.
private struct TableLocalizer: Localizer {
    let locale: Locale
    let formats: [String: String]
    let plurals: [String: (one: String, other: String)]

    func format(forKey key: String) -> String? { formats[key] }

    func plural(forKey key: String, count: Int) -> String? {
        plurals[key].map { PlaceholderFormat.fill(count == 1 ? $0.one : $0.other, with: [], count: count, locale: locale) }
    }
}

/// The amount field, backup, restore, lock and settings texts: whole sentences whose values a
/// language places where its grammar wants them, counts through plural forms.
@Suite struct FormsTextLanguageTests {
    /// A French-like table whose formats put the values in another order than English.
    private let french = TableLocalizer(
        locale: Locale(identifier: "fr_FR"),
        formats: [
            "money.amount": "%1$@ %2$@",
            "amount.tooManyDecimals": "%2$@ au plus après le séparateur pour les montants en %1$@.",
            "amount.tooMuch": "Au plus %@ ici ; saisissez un montant plus petit.",
            "restore.exchanged": "Échangé contre de nouveaux billets (%2$@) : %1$@.",
            "restore.alreadySpent": "%@ déjà dépensés par l’ancien appareil.",
            "settings.targetOutOfRange": "Par pas de %3$@, l’objectif va de %1$@ à %2$@.",
            "lock.reason": "Déverrouillez votre portefeuille",
        ],
        plurals: [
            "amount.digits": ("%lld chiffre", "%lld chiffres"),
            "restore.notes": ("%lld billet", "%lld billets"),
        ])

    @Test func amountErrorsCountDigitsAndPlaceValuesWhereTheLanguageWants() {
        let decimals: [(allowed: Int, currency: Currency, english: String, french: String)] = [
            (
                3, kwd, "KWD amounts have at most 3 digits after the separator.",
                "3 chiffres au plus après le séparateur pour les montants en KWD."
            ),
            (
                1, eur, "EUR amounts have at most 1 digit after the separator.",
                "1 chiffre au plus après le séparateur pour les montants en EUR."
            ),
        ]
        for d in decimals {
            let error = AmountEntryError.tooManyDecimals(allowed: d.allowed, currency: d.currency)
            #expect(error.description == d.english)
            Localization.withLocalizer(french) { #expect(error.description == d.french) }
        }
        #expect(
            AmountEntryError.tooManyDecimals(allowed: 0, currency: jpy).description
                == "JPY amounts have no decimals; enter a whole number.")
        Localization.withLocalizer(french) {
            // The maximum is money written for the language's locale.
            #expect(
                AmountEntryError.tooMuch(maximum: 1_250, currency: eur).description
                    == "Au plus 12,50 EUR ici ; saisissez un montant plus petit.")
            // A text the language lacks is the English one, never an empty line.
            #expect(AmountEntryError.empty.description == "Enter an amount.")
        }
    }

    @Test func restoreSummaryIsOneWholeSentencePerOutcome() throws {
        var exchange = IssuerClient.RestoreExchange()
        exchange.value = 3_000
        exchange.exchanged = 3
        exchange.alreadySpent = 1
        exchange.expired = 2
        exchange.refused = ["unknown note", "bad signature"]
        let key = try #require(KeyID(bytes: [UInt8](repeating: 7, count: KeyID.byteCount)))
        let summary = RestoreSummary(newKeyID: key, currency: eur, exchange: exchange, syncProblem: nil)
        #expect(
            summary.text
                == "30.00 EUR exchanged for fresh notes (3 notes). 1 note already spent by the old device. 2 notes expired. "
                + "2 notes refused: unknown note; bad signature.")
        Localization.withLocalizer(french) {
            #expect(summary.text.hasPrefix("Échangé contre de nouveaux billets (3 billets) : 30,00 EUR. 1 billet déjà dépensés"))
        }
        let later = RestoreSummary(newKeyID: key, currency: eur, exchange: nil, syncProblem: nil)
        #expect(later.text == "Restored under a new key. The restored notes are exchanged at the next sync (it did not finish).")
    }

    @Test func restoreRefusalsCountPaymentsInWords() {
        #expect(
            RestoreError.walletNotEmpty(amount: 1_000, currency: eur, pendingPayments: 1).description
                == "This wallet is not empty (10.00 EUR held, 1 payment waiting for a receipt). "
                + "Restore only into a new, empty wallet; nothing was changed.")
        #expect(
            RestoreError.walletNotEmpty(amount: 0, currency: nil, pendingPayments: 2).description
                == "This wallet is not empty (0 held, 2 payments waiting for a receipt). "
                + "Restore only into a new, empty wallet; nothing was changed.")
    }

    @Test func settingsRangeAndLockPromptFollowTheLanguage() {
        let error = SettingsModel.SettingsError.outOfRange(field: .target, range: 50...1000, step: 25)
        #expect(error.description == "The target must be between 50 and 1000, in steps of 25.")
        #expect(LockModel.reason == "Unlock your wallet")
        Localization.withLocalizer(french) {
            #expect(error.description == "Par pas de 25, l’objectif va de 50 à 1000.")
            // Read each time it is asked for, so a prompt shown after a language change is in
            // the new language.
            #expect(LockModel.reason == "Déverrouillez votre portefeuille")
        }
    }
}
