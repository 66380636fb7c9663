/// Base45 (RFC 9285): bytes as text in the 45 characters of the QR alphanumeric mode, so a
/// payload survives every QR decoder unchanged (binary mode does not: zbar's text mode alters
/// binary payloads) and packs at 5.5 bits per character.
public enum Base45 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
    static let values: [UInt8: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($0.element, $0.offset) })

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 1) / 2 * 3)
        var i = 0
        while i + 1 < bytes.count {
            var n = Int(bytes[i]) * 256 + Int(bytes[i + 1])
            for _ in 0..<3 {
                out.append(alphabet[n % 45])
                n /= 45
            }
            i += 2
        }
        if i < bytes.count {
            let n = Int(bytes[i])
            out.append(alphabet[n % 45])
            out.append(alphabet[n / 45])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for characters outside the alphabet, a dangling single character, or a group
    /// whose value does not fit its bytes (RFC 9285 §4: such input is invalid).
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 3 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 3 * 2 + 1)
        var i = 0
        while i < chars.count {
            let group = chars[i..<min(i + 3, chars.count)]
            var n = 0
            var factor = 1
            for c in group {
                guard let v = values[c] else { return nil }
                n += v * factor
                factor *= 45
            }
            if group.count == 3 {
                guard n <= 0xFFFF else { return nil }
                out.append(UInt8(n >> 8))
                out.append(UInt8(n & 0xFF))
            } else {
                guard n <= 0xFF else { return nil }
                out.append(UInt8(n))
            }
            i += 3
        }
        return out
    }
}
