import Foundation
import WalletAppModels

/// The app's String Catalog (App/Localizable.xcstrings) read as Xcode would compile it for one
/// language, so the models' texts can be rendered and checked in French and German on Linux.
struct StringCatalogLocalizer: Localizer {
    /// One catalog entry in one language: a plain format, or plural variants by category.
    enum Entry: Sendable {
        case text(String)
        case plural([String: String])
    }

    let language: String
    let locale: Locale
    let entries: [String: Entry]

    /// The repository's catalog.
    static let catalogURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("App/Localizable.xcstrings")

    /// Every key of the catalog, with the languages it has.
    static func catalog() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: catalogURL)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (json?["strings"] as? [String: [String: Any]]) ?? [:]
    }

    /// `language`'s texts ("fr"), amounts written for `locale` ("fr_FR").
    init(language: String, locale: String) throws {
        self.language = language
        self.locale = Locale(identifier: locale)
        var entries: [String: Entry] = [:]
        for (key, entry) in try Self.catalog() {
            let localizations = entry["localizations"] as? [String: Any]
            guard let loc = localizations?[language] as? [String: Any] else { continue }
            if let unit = loc["stringUnit"] as? [String: Any], let value = unit["value"] as? String {
                entries[key] = .text(value)
            } else if let variations = loc["variations"] as? [String: Any],
                let plural = variations["plural"] as? [String: Any]
            {
                var forms: [String: String] = [:]
                for (form, variant) in plural {
                    let unit = (variant as? [String: Any])?["stringUnit"] as? [String: Any]
                    if let value = unit?["value"] as? String { forms[form] = value }
                }
                entries[key] = .plural(forms)
            }
        }
        self.entries = entries
    }

    func format(forKey key: String) -> String? {
        if case .text(let format)? = entries[key] { format } else { nil }
    }

    func plural(forKey key: String, count: Int) -> String? {
        guard case .plural(let forms)? = entries[key] else { return nil }
        guard let format = forms[Self.category(count, language: language)] ?? forms["other"] else { return nil }
        return PlaceholderFormat.fill(format, with: [], count: count, locale: locale)
    }

    /// CLDR's cardinal plural category of a whole number in the catalog's languages: French
    /// counts 0 and 1 as "one", English and German only 1.
    static func category(_ count: Int, language: String) -> String {
        switch language {
        case "fr": count == 0 || count == 1 ? "one" : "other"
        default: count == 1 ? "one" : "other"
        }
    }
}
