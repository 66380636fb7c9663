import Foundation
import Synchronization

/// Where the screens' words come from: the app's String Catalog (App/Localizable.xcstrings) in
/// the person's language.
///
/// The models name every text by a key and carry its English wording as the default; a
/// localizer supplies the translation. The app installs one backed by its bundle at launch
/// (``Localization/install(_:)``); without one, the English defaults are shown, which is what
/// the tests on Linux read unless they pick a language with ``Localization/withLocalizer(_:_:)``.
///
/// A text is always one whole sentence or label in the catalog: the models substitute values
/// (amounts, names, counts, other whole texts) into a translated format's placeholders, never
/// join translated fragments, so each language orders its sentence as it needs.
public protocol Localizer: Sendable {
    /// The locale amounts and numbers are written for (its decimal separator).
    var locale: Locale { get }

    /// The translated format of `key` (placeholders `%@` or `%1$@`, `%2$@`…), or nil when this
    /// language lacks it, in which case the English default is used.
    func format(forKey key: String) -> String?

    /// The translated text of the plural `key` for `count`, the language's plural rule picking
    /// the variant and `count` written in (`%lld`); nil when this language lacks it.
    func plural(forKey key: String, count: Int) -> String?
}

/// The English defaults the models carry, for the locale `locale`.
public struct EnglishLocalizer: Localizer {
    public let locale: Locale

    /// English words; amounts written for `locale` (a fixed English locale by default, so the
    /// texts do not depend on the machine's settings).
    public init(locale: Locale = Locale(identifier: "en_US")) {
        self.locale = locale
    }

    public func format(forKey key: String) -> String? { nil }
    public func plural(forKey key: String, count: Int) -> String? { nil }
}

/// The localizer the models' texts use now.
public enum Localization {
    private static let installed = Mutex<any Localizer>(EnglishLocalizer())
    // Spelled out rather than `@TaskLocal`, which is a property wrapper in older SDKs (a mutable
    // static there) and a macro in newer ones.
    private static let scoped = TaskLocal<(any Localizer)?>(wrappedValue: nil)

    /// The localizer in effect: the one a caller scoped with ``withLocalizer(_:_:)``, else the
    /// installed one.
    public static var current: any Localizer {
        scoped.get() ?? installed.withLock { $0 }
    }

    /// Makes `localizer` the app's for every text computed from now on (once, at launch).
    public static func install(_ localizer: any Localizer) {
        installed.withLock { $0 = localizer }
    }

    /// Runs `body` with `localizer`'s language for the texts it computes, on this task only
    /// (tests render one language without affecting others running beside them). Texts a model
    /// computed earlier, or computes in a task of its own, keep the language in effect there.
    public static func withLocalizer<R>(_ localizer: any Localizer, _ body: () throws -> R) rethrows -> R {
        try scoped.withValue(localizer, operation: body)
    }
}

/// The text of catalog `key` in the current language: its format (or `english`, the default)
/// with `arguments` written into its placeholders in order (`%@`) or by position (`%2$@`).
///
/// `key` and `english` are literals, so the catalog check on Linux finds every key the models
/// use, with its English wording, by reading the sources.
func localized(_ key: StaticString, _ english: StaticString, _ arguments: String...) -> String {
    let format = Localization.current.format(forKey: "\(key)") ?? "\(english)"
    return PlaceholderFormat.fill(format, with: arguments)
}

/// The text of plural catalog `key` for `count` in the current language; `one` and `other` are
/// the English defaults (each with one `%lld`).
func localized(_ key: StaticString, count: Int, one: StaticString, other: StaticString) -> String {
    let localizer = Localization.current
    if let text = localizer.plural(forKey: "\(key)", count: count) { return text }
    let english = count == 1 ? "\(one)" : "\(other)"
    return PlaceholderFormat.fill(english, with: [], count: count, locale: localizer.locale)
}

/// Writes values into a catalog format's placeholders: `%@` and `%n$@` take the arguments,
/// `%lld`, `%ld`, `%d` (and their `%n$` forms) the count, `%%` is a percent sign. Anything else
/// is left as written.
public enum PlaceholderFormat {
    /// `format` with `arguments` and `count` written in; a placeholder without a value stays
    /// empty rather than failing, so a bad translation shows a gap, never crashes the screen.
    public static func fill(
        _ format: String, with arguments: [String], count: Int? = nil, locale: Locale = Localization.current.locale
    ) -> String {
        var out = ""
        var next = 0
        var i = format.startIndex
        while i < format.endIndex {
            let c = format[i]
            guard c == "%" else {
                out.append(c)
                i = format.index(after: i)
                continue
            }
            var j = format.index(after: i)
            guard j < format.endIndex else {
                out.append(c)
                break
            }
            if format[j] == "%" {
                out.append("%")
                i = format.index(after: j)
                continue
            }
            // An optional position: digits then "$".
            var position: Int?
            var k = j
            while k < format.endIndex, let d = format[k].wholeNumberValue, format[k].isASCII {
                position = (position ?? 0) * 10 + d
                k = format.index(after: k)
            }
            if position != nil, k < format.endIndex, format[k] == "$" {
                j = format.index(after: k)
            } else {
                position = nil
            }
            if j < format.endIndex, format[j] == "@" {
                let index = position.map { $0 - 1 } ?? next
                next = index + 1
                if arguments.indices.contains(index) { out += arguments[index] }
                i = format.index(after: j)
                continue
            }
            let integer = ["lld", "ld", "d"].first { format[j...].hasPrefix($0) }
            if let integer {
                if let count { out += count.formatted(.number.locale(locale)) }
                i = format.index(j, offsetBy: integer.count)
                continue
            }
            out.append(c)
            i = format.index(after: i)
        }
        return out
    }
}
