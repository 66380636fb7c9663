import OfflineNotes
import Testing

/// Inputs from the fuzzers' corpora (Fuzz/, scripts/fuzz, docs/reliability.md §1), kept as
/// tests so what they check holds without a fuzz build.
@Suite struct FuzzRegressionTests {
    /// base64url has one spelling per byte string: a last character with its unused low bits set
    /// ("QR" beside "QQ" for the byte 0x41) is refused, so no key or state reference has
    /// several spellings (the api-json fuzz target's input).
    @Test func base64URLRefusesSetPaddingBits() {
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QR") == nil)
        #expect(Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(Base64URL.decode("QUJ") == nil)
        // The fuzzer's input: a 33-byte wallet key cut to 38 characters, the last one with stray bits.
        #expect(Base64URL.decode("AnTkoA5XGc4D3bszGxSJpKbf1BKfL6-Th9PTe1") == nil)
        #expect(Base64URL.decode("AnTkoA5XGc4D3bszGxSJpKbf1BKfL6-Th9PTew") != nil)
        // Every byte string still reads back from its own spelling.
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "length \(length)")
        }
    }
}
