import OfflineNotes

/// Text that came from another party (a payee's name in a request, a counterparty in the
/// history), made safe to show.
///
/// A payment request is signed by its payee, not checked by anyone the payer trusts, so its name
/// can hold anything UTF-8 allows: terminal escape sequences that clear the screen or retitle the
/// window, carriage returns and newlines that forge a line such as "Paid 999.00 EUR", bidi
/// overrides that reverse what follows. `visible(_:)` keeps every letter, digit, mark, symbol and
/// space of any script, and shows each control or invisible formatting character as something a
/// person can see instead of something a terminal or a text view acts on:
/// - C0 controls U+0000–U+001F and DEL as their Unicode control pictures (ESC `␛`, CR `␍`,
///   LF `␊`, TAB `␉`, DEL `␡`);
/// - C1 controls U+0080–U+009F, format characters (bidi overrides and isolates, zero-width
///   spaces, the BOM), line and paragraph separators, and unassigned, private-use and surrogate
///   code points as `<U+XXXX>`. The zero-width joiner and non-joiner stay: emoji sequences and
///   several scripts (Persian, Indic) are written with them, and they move nothing.
/// Stored data keeps the original text (it is part of signed bytes); only what is shown is
/// changed. The command line's `--json` output stays raw: JSON escapes every control character.
///
/// ```swift
/// DisplayText.visible("Stall\u{1B}[2J\r\nFAKE")   // "Stall␛[2J␍␊FAKE"
/// ```
public enum DisplayText {
    /// `text` with every control or invisible formatting character shown as described above.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F:
                out.append(Unicode.Scalar(0x2400 + scalar.value) ?? "?")
            case 0x7F:
                out.append("\u{2421}")
            default:
                if needsEscape(scalar) {
                    out.append(contentsOf: "<U+\(hex(scalar.value))>".unicodeScalars)
                } else {
                    out.append(scalar)
                }
            }
        }
        return String(out)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\u{200C}" || scalar == "\u{200D}" { return false }
        return switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate:
            true
        default:
            false
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension PaymentRequest {
    /// The payee's name as a screen shows it (`DisplayText.visible`), or nil when the request
    /// names no payee.
    public var payeeNameShown: String? { payeeName.isEmpty ? nil : DisplayText.visible(payeeName) }
}
