import Testing
import WalletCore

/// `DisplayText.visible`: every control or invisible formatting character becomes something a
/// person sees; everything else, in any script, is left as it is.
@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("Stall\u{1B}[2J\r\nFAKE", "Stall\u{241B}[2J\u{240D}\u{240A}FAKE"),
        ("bell\u{07} tab\t nul\u{0} del\u{7F}", "bell\u{2407} tab\u{2409} nul\u{2400} del\u{2421}"),
        ("csi\u{9B}2J", "csi<U+009B>2J"),
        ("cost \u{202E}00.999", "cost <U+202E>00.999"),
        ("zero\u{200B}width\u{2066}isolate\u{FEFF}", "zero<U+200B>width<U+2066>isolate<U+FEFF>"),
        ("line\u{2028}para\u{2029}", "line<U+2028>para<U+2029>"),
        ("private\u{E000}", "private<U+E000>"),
    ])
    func controlAndFormatCharactersAreShown(input: String, shown: String) {
        #expect(DisplayText.visible(input) == shown)
    }

    /// Letters, marks and symbols of any script, emoji (joined with U+200D), Persian with U+200C.
    @Test(arguments: [
        "Bob's Café", "Étal de Zoé — 3 € le kilo", "東京の屋台", "محل", "\u{1F469}\u{1F3FD}\u{200D}\u{1F373} Kitchen",
        "می\u{200C}خواهم", "a  b", "",
    ])
    func ordinaryTextIsUnchanged(text: String) {
        #expect(DisplayText.visible(text) == text)
    }

    @Test func theResultHasNoControlOrFormatCharacterLeft() {
        var all = String.UnicodeScalarView()
        for value in UInt32(0)...0x3000 { if let scalar = Unicode.Scalar(value) { all.append(scalar) } }
        let shown = DisplayText.visible(String(all))
        let left = shown.unicodeScalars.filter {
            $0 != "\u{200C}" && $0 != "\u{200D}"
                && [.control, .format, .lineSeparator, .paragraphSeparator, .unassigned].contains($0.properties.generalCategory)
        }
        #expect(left.isEmpty, "still present: \(left.prefix(5).map { String($0.value, radix: 16) })")
    }
}
