import Foundation

/// An account's email address, checked and normalized wherever one enters the issuer
/// (register, login, online send), so that one address is one account and no two accounts
/// look alike.
///
/// Rules:
/// - Spaces (U+0020) before and after are dropped. Anywhere else, no whitespace or separator,
///   no control character (Cc: NUL, newline, tab…), no format character (Cf: zero-width space
///   and joiners, bidi controls, BOM), and no surrogate, private-use or unassigned code point.
/// - Exactly one `@`, a non-empty local part before it (at most 64 UTF-8 bytes) and a domain
///   after it; the whole address at most 254 UTF-8 bytes (RFC 5321).
/// - Local part: a dot-atom (RFC 5322) of letters, marks and digits of any script and
///   ``! # $ % & ' * + - / = ? ^ _ ` { | } ~``; a dot only between two other characters.
///   Quoted local parts (`"a b"@x`) are refused.
/// - Domain: labels of letters, marks, digits and hyphens (1 to 63 bytes, no hyphen first or
///   last) joined by single dots. A one-label domain (`localhost`) is accepted.
/// - Normalized form (`normalized`, stored and looked up): Unicode NFC, then lowercased as a
///   whole. The local part is case-insensitive on this issuer, as it always was.
/// - `skeleton`: what the address looks like to a person — NFKC (full-width letters become
///   ASCII, ligatures split), lowercased, and Cyrillic and Greek letters that are drawn like
///   Latin ones replaced by those. Accounts have unique skeletons: a look-alike of an existing
///   address is refused at registration. Lookups use `normalized`, never the skeleton, so a
///   payer who types the plain address never reaches a look-alike.
struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    let normalized: String
    let skeleton: String
    var description: String { normalized }

    /// Checks and normalizes `input`; `field` names it in the error (`email`, `to`).
    init(_ input: String, field: String = "email") throws(IssuerError) {
        func refuse(_ reason: String) -> IssuerError { .invalidField(field: field, reason: reason) }
        var scalars = Substring(input).unicodeScalars
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        let address = String(String.UnicodeScalarView(scalars)).precomposedStringWithCanonicalMapping.lowercased()
            .precomposedStringWithCanonicalMapping
        if let bad = address.unicodeScalars.first(where: { !Self.allowedAnywhere($0) }) {
            throw refuse("must not contain \(Self.name(bad)) (control, invisible or whitespace characters are not allowed)")
        }
        guard !address.isEmpty, address.utf8.count <= 254 else { throw refuse("must be an email address of 1 to 254 bytes") }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw refuse("must contain exactly one '@'") }
        let (local, domain) = (parts[0], parts[1])
        guard !local.isEmpty, local.utf8.count <= 64 else { throw refuse("needs 1 to 64 bytes before the '@'") }
        guard !domain.isEmpty else { throw refuse("needs a domain after the '@'") }
        let atoms = local.split(separator: ".", omittingEmptySubsequences: false)
        guard atoms.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(Self.allowedInLocalPart) }) else {
            throw refuse(
                "the part before the '@' may hold letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~, with single dots between them"
            )
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard
            labels.allSatisfy({ label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && label.unicodeScalars.allSatisfy { Self.isLetterMarkOrDigit($0) || $0 == "-" }
            })
        else { throw refuse("the domain must be labels of letters, digits and hyphens separated by single dots") }
        normalized = address
        skeleton = Self.skeleton(of: address)
    }

    /// The look-alike key of any stored address (also of addresses stored before these rules).
    static func skeleton(of address: String) -> String {
        let folded = address.precomposedStringWithCompatibilityMapping.lowercased()
        var out = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars { out.append(lookAlikes[scalar] ?? scalar) }
        return String(out).precomposedStringWithCanonicalMapping
    }

    /// Lowercase Cyrillic and Greek letters drawn like a Latin letter in common fonts.
    static let lookAlikes: [Unicode.Scalar: Unicode.Scalar] = [
        // Cyrillic
        "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "ӏ": "l", "м": "m",
        "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y",
        // Greek
        "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y",
        // Latin letters drawn like others
        "ı": "i", "ɡ": "g",
    ]

    private static func allowedAnywhere(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .spaceSeparator, .lineSeparator, .paragraphSeparator:
            false
        default:
            !s.properties.isWhitespace
        }
    }

    private static func isLetterMarkOrDigit(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
            true
        default:
            false
        }
    }

    private static func allowedInLocalPart(_ s: Unicode.Scalar) -> Bool {
        isLetterMarkOrDigit(s) || "!#$%&'*+-/=?^_`{|}~".unicodeScalars.contains(s)
    }

    private static func name(_ s: Unicode.Scalar) -> String {
        "U+" + String(s.value, radix: 16, uppercase: true).leftPadded(to: 4)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
