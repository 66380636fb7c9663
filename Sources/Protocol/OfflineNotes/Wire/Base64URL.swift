import Foundation

/// base64url without padding (RFC 4648 §5), how binary travels in the JSON API.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Nil unless `text` is the one spelling `encode` writes: Foundation also accepts a last
    /// character whose unused low bits are set ("QR" and "QQ" both read as "A"), so one byte
    /// string would have several spellings and a reference echoed back would not match the one
    /// sent (found by fuzzing, docs/reliability.md §1).
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        guard let bytes = Data(base64Encoded: s).map(Array.init), encode(bytes) == text else { return nil }
        return bytes
    }
}
