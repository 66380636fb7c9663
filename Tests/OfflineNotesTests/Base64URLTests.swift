import Foundation
import OfflineNotes
import Testing

/// The byte-level Base64URL (Foundation's was a visible share of a loaded server's CPU) must
/// accept and write exactly what the Foundation-based version did, canonical spellings only.
@Suite struct Base64URLTests {
    /// The previous implementation, kept as the reference.
    static func referenceEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func referenceDecode(_ text: String) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        guard let bytes = Data(base64Encoded: s).map(Array.init), referenceEncode(bytes) == text else { return nil }
        return bytes
    }

    @Test func encodesAsTheReferenceDoes() {
        var g = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &g) }
            #expect(Base64URL.encode(bytes) == Self.referenceEncode(bytes), "length \(length)")
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "length \(length)")
        }
    }

    /// Every string of up to three characters over the alphabet, padding, the standard
    /// alphabet's + and /, a space and a non-ASCII letter: the same answer as the reference.
    @Test func decodesEveryShortStringAsTheReferenceDoes() {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ é")
        var strings = [""]
        var previous = [""]
        for _ in 1...3 {
            previous = previous.flatMap { p in characters.map { p + String($0) } }
            strings += previous
        }
        for s in strings { #expect(Base64URL.decode(s) == Self.referenceDecode(s), "\(s)") }
    }

    @Test func refusesWhatTheReferenceRefusesInLongInput() {
        let valid = Base64URL.encode(Array(0...200))
        for bad in [
            valid + "A", valid + "=", "=" + valid, valid.replacingOccurrences(of: "A", with: "+"), valid + " ", valid + "é",
            String(valid.dropLast()) + "B",
        ] {
            #expect(Base64URL.decode(bad) == Self.referenceDecode(bad), "\(bad.suffix(4))")
        }
    }
}
