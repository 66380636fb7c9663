// Planted mistakes for App/Checks/lint-strings.py (scripts/check-app, self-test): each line
// with a strings marker must be flagged, and no other line. Parsed, never compiled.

enum PlantedModel {
    static func translated() -> String { localized("planted.ok", "Fully translated.") }
    static func wordsOutsideACatalog() -> String { "Your balance is low." }  // strings: literal
    static func identifier() -> String { "settings.autoRecharge" }
    static func storageKey() -> String { "a storage key with spaces" }  // not shown: a storage key
    static func joined(_ name: String) -> String { localized("planted.hello", "Hello") + name }  // strings: fragment
    static func nested() -> String { "\(localized("planted.ok2", "Done."))!" }  // strings: fragment
    static func notInCatalog() -> String { localized("planted.absent", "Nobody translated this.") }  // strings: missing
    static func frenchMissing() -> String { localized("planted.noFrench", "Only English and German.") }  // strings: missing
    static func wrongPlaceholders(_ a: String, _ b: String) -> String {
        localized("planted.placeholders", "Pay %1$@ to %2$@.", a, b)  // strings: placeholders
    }
    static func englishDrifted() -> String { localized("planted.drift", "The code says this.") }  // strings: english
    static func counted(_ n: Int) -> String {
        localized("planted.count", count: n, one: "%lld note", other: "%lld notes")  // strings: plural
    }
}
