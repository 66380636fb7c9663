import OfflineNotes

/// Lower-case hex, as every vector file writes bytes.
func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

/// The protocol's varint encoding of `value`.
func varint(_ value: UInt64) -> [UInt8] {
    var writer = ByteWriter()
    writer.varint(value)
    return writer.bytes
}

/// `count` bytes of a fixed pattern (byte i is 7i + 3, modulo 256): messages and records whose
/// content does not matter.
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }
