/// A 20-byte Ethereum account address. Written with its EIP-55 checksum (mixed case that encodes
/// a hash of the address, so most typos are caught); read from all-lower, all-upper, or a
/// correctly checksummed mixed case.
public struct Address: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The 20 address bytes.
    public let bytes: [UInt8]

    /// The zero address (contract creation's "no recipient"; tokens minted come "from" it).
    public static let zero = Address(unchecked: [UInt8](repeating: 0, count: 20))

    /// An address from its 20 bytes (as decoded from an ABI word or a public key hash). Any 20
    /// bytes are accepted, the zero address included.
    public init(bytes: [UInt8]) throws(EthereumError) {
        guard bytes.count == 20 else { throw .invalidAddress("\(bytes.count) bytes, not 20") }
        self.bytes = bytes
    }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Parses "0x" + 40 hex digits: all lower case, all upper case, or mixed case whose EIP-55
    /// checksum matches (a wrong checksum is refused: the address was probably mistyped). The
    /// zero address is refused unless `allowZero` — nobody owns it, and user input naming it is
    /// a mistake.
    public init(hex text: String, allowZero: Bool = false) throws(EthereumError) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 42, utf8[0] == UInt8(ascii: "0"), utf8[1] == UInt8(ascii: "x") || utf8[1] == UInt8(ascii: "X") else {
            throw .invalidAddress("\(Hex.quoted(text)) is not 0x followed by 40 hex digits")
        }
        let bytes: [UInt8]
        do { bytes = try Hex.decode(text) } catch {
            throw .invalidAddress("\(Hex.quoted(text)) holds a character that is not a hex digit")
        }
        let digits = utf8[2...]
        let hasLower = digits.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") }
        let hasUpper = digits.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }
        let address = Address(unchecked: bytes)
        if hasLower && hasUpper && address.checksummed.utf8.dropFirst(2).elementsEqual(digits) == false {
            throw .badChecksum(text)
        }
        if !allowZero && address.isZero { throw .zeroAddress }
        self = address
    }

    /// True for 0x0000…0000.
    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// "0x" and the EIP-55 mixed-case hex: a letter digit is upper case when the matching nibble
    /// of keccak256(lower-case hex text) is 8 or more.
    public var checksummed: String {
        let lower = Array(Hex.encode(bytes, prefixed: false).utf8)
        let hash = Keccak256.hash(lower)
        var out = Array("0x".utf8)
        for (i, char) in lower.enumerated() {
            let nibble = i % 2 == 0 ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f
            if char >= UInt8(ascii: "a") && nibble >= 8 {
                out.append(char - 32)
            } else {
                out.append(char)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The checksummed text.
    public var description: String { checksummed }

    /// The address as a left-padded 32-byte word (ABI argument, indexed event topic).
    public var word: [UInt8] { [UInt8](repeating: 0, count: 12) + bytes }

    public static func < (lhs: Address, rhs: Address) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// Decodes from its text with the same rules as `init(hex:)`, the zero address included
    /// (whether zero is acceptable is the caller's rule, not the format's).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try Address(hex: text, allowZero: true)
    }

    /// Encodes as its checksummed text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(checksummed)
    }
}
