/// A value that is exactly `byteCount` raw bytes on the wire (keys, ids, hashes, nonces).
public protocol FixedWidthBytes: Hashable, Sendable, CustomStringConvertible, Comparable {
    static var byteCount: Int { get }
    var bytes: [UInt8] { get }
    /// Callers guarantee `bytes.count == byteCount`; readers use it after a width-checked read.
    init(uncheckedBytes: [UInt8])
}

extension FixedWidthBytes {
    /// Fails unless `bytes` has exactly the type's width.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.init(uncheckedBytes: bytes)
    }

    /// Parses lowercase or uppercase hex of exactly the type's width.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

/// 128-bit random identifier of an issued note.
public struct NoteID: FixedWidthBytes {
    public static let byteCount = 16
    public let bytes: [UInt8]
    public init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }
}

/// 128-bit payee nonce that binds a transfer to one payment request.
public struct Nonce: FixedWidthBytes {
    public static let byteCount = 16
    public let bytes: [UInt8]
    public init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }
}

/// First 8 bytes of SHA-256 of a compressed public key.
public struct KeyID: FixedWidthBytes {
    public static let byteCount = 8
    public let bytes: [UInt8]
    public init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }
}

/// A SHA-256 digest used as an identifier (state references, transfer and payment ids).
public struct Digest32: FixedWidthBytes {
    public static let byteCount = 32
    public let bytes: [UInt8]
    public init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }
}

/// Identifies one note state: the issued note itself, or output *i* of a transfer.
public typealias StateRef = Digest32

/// Hex helpers shared by descriptions, vectors and the CLI.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
