/// Hexadecimal text as Ethereum's JSON-RPC writes it: byte strings ("DATA") as 0x followed by two
/// digits per byte, integers ("QUANTITY") as 0x followed by the shortest hex digits ("0x0" for zero).
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lower-case hex of `bytes`, with a leading "0x" unless `prefixed` is false.
    public static func encode(_ bytes: some Sequence<UInt8>, prefixed: Bool = true) -> String {
        var out: [UInt8] = prefixed ? [UInt8(ascii: "0"), UInt8(ascii: "x")] : []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a "0x…" DATA string (either case; an even number of digits; "0x" is empty).
    /// With `requirePrefix: false` the "0x" may be left out.
    public static func decode(_ text: String, requirePrefix: Bool = true) throws(EthereumError) -> [UInt8] {
        var utf8 = Substring(text).utf8[...]
        if utf8.starts(with: "0x".utf8) || utf8.starts(with: "0X".utf8) {
            utf8 = utf8.dropFirst(2)
        } else if requirePrefix {
            throw .invalidHex("\(quoted(text)) does not start with 0x")
        }
        guard utf8.count % 2 == 0 else { throw .invalidHex("\(quoted(text)) has an odd number of digits") }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var high: UInt8? = nil
        for char in utf8 {
            guard let value = nibble(char) else { throw .invalidHex("\(quoted(text)) holds a character that is not a hex digit") }
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }

    /// A JSON-RPC QUANTITY: "0x" and the shortest hex digits ("0x0" for zero).
    public static func quantity(_ value: some UnsignedInteger & FixedWidthInteger) -> String {
        "0x" + String(value, radix: 16)
    }

    /// Parses a JSON-RPC QUANTITY ("0x1a", either case) into `T`. Refuses a missing 0x, no digits,
    /// anything but hex digits, and a value wider than `T` (never truncated). Leading zeros,
    /// which the spec forbids but some nodes write, are accepted.
    public static func parseQuantity<T: UnsignedInteger & FixedWidthInteger>(
        _ text: String, as type: T.Type = T.self
    ) throws(EthereumError) -> T {
        var utf8 = Substring(text).utf8[...]
        guard utf8.starts(with: "0x".utf8) || utf8.starts(with: "0X".utf8) else {
            throw .invalidQuantity("\(quoted(text)) does not start with 0x")
        }
        utf8 = utf8.dropFirst(2)
        guard !utf8.isEmpty else { throw .invalidQuantity("\(quoted(text)) has no digits") }
        var value: T = 0
        for char in utf8 {
            guard let digit = nibble(char) else {
                throw .invalidQuantity("\(quoted(text)) holds a character that is not a hex digit")
            }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 16)
            guard !overflow else { throw .invalidQuantity("\(quoted(text)) does not fit in \(T.bitWidth) bits") }
            value = shifted | T(digit)
        }
        return value
    }

    /// The value of one hex digit, or nil.
    static func nibble(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Input echoed in an error, cut short so a huge blob does not flood a log.
    static func quoted(_ text: String) -> String {
        text.count <= 80 ? "\"\(text)\"" : "\"\(text.prefix(77))...\""
    }
}

/// Big-endian byte helpers shared by RLP, ABI and transactions.
enum BigEndian {
    /// The shortest big-endian bytes of `value` (empty for zero), as RLP encodes integers.
    static func minimal(_ value: some UnsignedInteger & FixedWidthInteger) -> [UInt8] {
        var bytes: [UInt8] = []
        var v = value
        while v != 0 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
        return bytes.reversed()
    }

    /// `bytes` without leading zero bytes.
    static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop(while: { $0 == 0 }))
    }

    /// The integer whose big-endian bytes are `bytes`, or nil if it does not fit in `T`.
    static func integer<T: UnsignedInteger & FixedWidthInteger>(_ bytes: some Collection<UInt8>, as type: T.Type = T.self) -> T? {
        let significant = bytes.drop(while: { $0 == 0 })
        guard significant.count <= T.bitWidth / 8 else { return nil }
        var value: T = 0
        for byte in significant { value = value << 8 | T(byte) }
        return value
    }
}
