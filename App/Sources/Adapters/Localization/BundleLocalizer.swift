import Foundation
import WalletAppModels

/// The models' texts from the app's String Catalog (App/Localizable.xcstrings, which Xcode
/// compiles into each language's Localizable.strings and .stringsdict in the bundle), in the
/// language iOS picked for the app.
///
/// Plain keys give their translated format, which the models fill themselves
/// (`PlaceholderFormat`); plural keys go through Foundation's own plural rules, which read the
/// .stringsdict variant for the count.
struct BundleLocalizer: Localizer {
    /// What `localizedString` returns for a key this language lacks.
    private static let missing = "\u{1}missing\u{1}"

    var locale: Locale { .current }

    func format(forKey key: String) -> String? {
        let text = Bundle.main.localizedString(forKey: key, value: Self.missing, table: nil)
        return text == Self.missing ? nil : text
    }

    func plural(forKey key: String, count: Int) -> String? {
        guard let format = format(forKey: key) else { return nil }
        return String(format: format, locale: locale, count)
    }
}
