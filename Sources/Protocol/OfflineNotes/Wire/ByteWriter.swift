/// Appends protocol primitives to a byte buffer.
///
/// Every encoder in this module writes through this type so that the encoding rules
/// (minimal LEB128 varints, fixed-width raw fields) live in one place; `docs/protocol.md` §2.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) {
        bytes.append(value)
    }

    /// Unsigned LEB128, always in its shortest form.
    public mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Raw bytes with no length prefix; the reader knows the width.
    public mutating func raw(_ data: some Sequence<UInt8>) {
        bytes.append(contentsOf: data)
    }

    public mutating func raw<T: FixedWidthBytes>(_ value: T) {
        bytes.append(contentsOf: value.bytes)
    }

    /// A varint length followed by the bytes.
    public mutating func lengthPrefixed(_ data: [UInt8]) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }
}
