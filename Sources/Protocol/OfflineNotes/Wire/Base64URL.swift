import Foundation

/// base64url without padding (RFC 4648 §5), how binary travels in the JSON API.
///
/// Byte-level on UTF-8, without Foundation: every chain a server redeems is decoded here, so it
/// stays one pass over a 64-entry table (no Character walk, no bridging to `NSString`).
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each UTF-8 byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        switch bytes.count - i {
        case 1:
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
        case 2:
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil unless `text` is the one spelling `encode` writes: only the alphabet, no padding, and
    /// a last character whose unused low bits are zero ("QR" and "QQ" would both read as "A", so
    /// one byte string would have several spellings and a reference echoed back would not match
    /// the one sent; docs/reliability.md §1).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let tail = input.count % 4
        guard tail != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3 + 2)
        var i = 0
        while i + 4 <= input.count {
            let a = values[Int(input[i])], b = values[Int(input[i + 1])], c = values[Int(input[i + 2])],
                d = values[Int(input[i + 3])]
            // 0xFF (outside the alphabet) has the high bits set; every 6-bit value has them clear.
            guard (a | b | c | d) & 0xC0 == 0 else { return nil }
            let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            out += [UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            i += 4
        }
        switch tail {
        case 2:
            let a = values[Int(input[i])], b = values[Int(input[i + 1])]
            guard (a | b) & 0xC0 == 0, b & 0x0F == 0 else { return nil }
            out.append(a << 2 | b >> 4)
        case 3:
            let a = values[Int(input[i])], b = values[Int(input[i + 1])], c = values[Int(input[i + 2])]
            guard (a | b | c) & 0xC0 == 0, c & 0x03 == 0 else { return nil }
            out += [a << 2 | b >> 4, (b & 0x0F) << 4 | c >> 2]
        default: break
        }
        return out
    }
}
