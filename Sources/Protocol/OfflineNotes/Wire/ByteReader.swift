/// Reads protocol primitives strictly: truncation, non-minimal varints and over-long
/// fields are errors, so every value has exactly one accepted encoding.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
    }

    public var isAtEnd: Bool { offset == bytes.count }
    public var remaining: Int { bytes.count - offset }

    public mutating func u8() throws(VerificationError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Unsigned LEB128 of at most 10 bytes, shortest form only.
    public mutating func varint(_ field: StaticString = "varint") throws(VerificationError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        for index in 0..<10 {
            let byte = try u8()
            let payload = UInt64(byte & 0x7F)
            if index == 9 && byte > 0x01 {
                throw .malformed("\(field): varint exceeds 64 bits")
            }
            result |= payload << shift
            if byte & 0x80 == 0 {
                // A final zero byte after the first one means a longer-than-needed encoding.
                if index > 0 && byte == 0 {
                    throw .malformed("\(field): varint is not in shortest form")
                }
                return result
            }
            shift += 7
        }
        throw .malformed("\(field): varint longer than 10 bytes")
    }

    public mutating func raw(_ count: Int) throws(VerificationError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    public mutating func fixed<T: FixedWidthBytes>(_: T.Type) throws(VerificationError) -> T {
        T(uncheckedBytes: try raw(T.byteCount))
    }

    /// A varint length (at most `maxLength`) followed by that many bytes.
    public mutating func lengthPrefixed(max maxLength: Int, _ field: StaticString) throws(VerificationError) -> [UInt8] {
        let length = try varint(field)
        guard length <= UInt64(maxLength) else {
            throw .malformed("\(field): length \(length) exceeds \(maxLength)")
        }
        return try raw(Int(length))
    }

    /// Bytes consumed since `start`: how decoders capture the exact signed body.
    public func slice(from start: Int) -> [UInt8] {
        Array(bytes[start..<offset])
    }

    public func expectEnd() throws(VerificationError) {
        guard isAtEnd else { throw .malformed("\(remaining) unexpected trailing bytes") }
    }
}
