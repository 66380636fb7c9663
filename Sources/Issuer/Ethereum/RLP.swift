/// Recursive Length Prefix, Ethereum's serialization (yellow paper, appendix B): an item is a
/// byte string or a list of items. Decoding accepts only the canonical encoding, which is what
/// makes a transaction's bytes — and so its hash — unique.
public indirect enum RLP: Equatable, Sendable {
    case bytes([UInt8])
    case list([RLP])

    /// The most lists decoding accepts inside one another; deeper nesting is refused so hostile
    /// input cannot exhaust the stack. Ethereum's own structures nest a few levels at most.
    public static let maximumDepth = 64

    /// An integer as RLP writes it: big-endian without leading zeros (zero is the empty string).
    public static func uint(_ value: some UnsignedInteger & FixedWidthInteger) -> RLP {
        .bytes(BigEndian.minimal(value))
    }

    /// A string's UTF-8 bytes.
    public static func string(_ text: String) -> RLP {
        .bytes(Array(text.utf8))
    }

    /// The canonical encoding of this item.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    /// The canonical encoding of `item`.
    public static func encode(_ item: RLP) -> [UInt8] { item.encoded }

    private func append(to out: inout [UInt8]) {
        switch self {
        case .bytes(let bytes):
            if bytes.count == 1 && bytes[0] < 0x80 {
                out.append(bytes[0])
            } else {
                Self.appendHeader(count: bytes.count, short: 0x80, long: 0xb7, to: &out)
                out.append(contentsOf: bytes)
            }
        case .list(let items):
            var payload: [UInt8] = []
            for item in items { item.append(to: &payload) }
            Self.appendHeader(count: payload.count, short: 0xc0, long: 0xf7, to: &out)
            out.append(contentsOf: payload)
        }
    }

    private static func appendHeader(count: Int, short: UInt8, long: UInt8, to out: inout [UInt8]) {
        if count <= 55 {
            out.append(short + UInt8(count))
        } else {
            let length = BigEndian.minimal(UInt64(count))
            out.append(long + UInt8(length.count))
            out.append(contentsOf: length)
        }
    }

    /// Decodes exactly one item filling all of `data`. Refuses truncated input, trailing bytes
    /// and every non-canonical form: a single byte below 0x80 wrapped in a header, a long-form
    /// length under 56, a length with leading zero bytes.
    public static func decode(_ data: [UInt8]) throws(EthereumError) -> RLP {
        var index = 0
        let item = try decodeItem(data, &index, end: data.count, depth: 0)
        guard index == data.count else { throw .invalidRLP(.trailingBytes) }
        return item
    }

    private static func decodeItem(_ data: [UInt8], _ index: inout Int, end: Int, depth: Int) throws(EthereumError) -> RLP {
        guard index < end else { throw .invalidRLP(.truncated) }
        let prefix = data[index]
        index += 1
        switch prefix {
        case 0x00...0x7f:
            return .bytes([prefix])
        case 0x80...0xbf:
            let count = try length(data, &index, end: end, prefix: prefix, short: 0x80, long: 0xb7)
            let bytes = Array(data[index..<(index + count)])
            if count == 1 && bytes[0] < 0x80 {
                throw .invalidRLP(.nonCanonical("single byte 0x\(String(bytes[0], radix: 16)) must be encoded as itself"))
            }
            index += count
            return .bytes(bytes)
        default:
            guard depth < maximumDepth else { throw .invalidRLP(.tooDeep) }
            let count = try length(data, &index, end: end, prefix: prefix, short: 0xc0, long: 0xf7)
            let listEnd = index + count
            var items: [RLP] = []
            while index < listEnd {
                items.append(try decodeItem(data, &index, end: listEnd, depth: depth + 1))
            }
            return .list(items)
        }
    }

    /// Reads the payload length after `prefix`, checking it is canonical and fits before `end`.
    private static func length(
        _ data: [UInt8], _ index: inout Int, end: Int, prefix: UInt8, short: UInt8, long: UInt8
    ) throws(EthereumError) -> Int {
        let count: Int
        if prefix <= long {
            count = Int(prefix - short)
        } else {
            let lengthBytes = Int(prefix - long)
            guard end - index >= lengthBytes else { throw .invalidRLP(.truncated) }
            let slice = data[index..<(index + lengthBytes)]
            index += lengthBytes
            guard slice.first != 0 else { throw .invalidRLP(.nonCanonical("length with a leading zero byte")) }
            // At most 8 length bytes; anything over Int.max cannot fit the input anyway.
            guard let value = BigEndian.integer(slice, as: UInt64.self), value <= UInt64(Int.max) else {
                throw .invalidRLP(.truncated)
            }
            guard value >= 56 else { throw .invalidRLP(.nonCanonical("long-form length \(value) is under 56")) }
            count = Int(value)
        }
        guard end - index >= count else { throw .invalidRLP(.truncated) }
        return count
    }

    // MARK: Reading decoded items

    /// The byte string, or a typed error if this is a list.
    public func bytesValue() throws(EthereumError) -> [UInt8] {
        guard case .bytes(let bytes) = self else { throw .invalidRLP(.unexpected("expected a byte string, found a list")) }
        return bytes
    }

    /// The items, or a typed error if this is a byte string.
    public func listValue() throws(EthereumError) -> [RLP] {
        guard case .list(let items) = self else { throw .invalidRLP(.unexpected("expected a list, found a byte string")) }
        return items
    }

    /// The canonical integer (no leading zeros) this byte string holds, if it fits in `T`.
    public func uintValue<T: UnsignedInteger & FixedWidthInteger>(as type: T.Type = T.self) throws(EthereumError) -> T {
        let bytes = try bytesValue()
        guard bytes.first != 0 else { throw .invalidRLP(.unexpected("integer with a leading zero byte")) }
        guard let value = BigEndian.integer(bytes, as: T.self) else {
            throw .invalidRLP(.unexpected("integer of \(bytes.count) bytes does not fit in \(T.bitWidth) bits"))
        }
        return value
    }
}
