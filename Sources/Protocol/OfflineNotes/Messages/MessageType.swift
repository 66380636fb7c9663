/// The first two bytes of every top-level message: type, then version.
public enum MessageType: UInt8, Sendable {
    case issuedNote = 0x01
    case transfer = 0x02
    case chain = 0x03
    case paymentRequest = 0x04
    case paymentBundle = 0x05
    case receipt = 0x06
    case keyset = 0x07
    case limits = 0x08

    /// The only version of each message this implementation speaks.
    public static let currentVersion: UInt8 = 1

    func writeHeader(_ writer: inout ByteWriter) {
        writer.u8(rawValue)
        writer.u8(Self.currentVersion)
    }

    func readHeader(_ reader: inout ByteReader) throws(VerificationError) {
        let type = try reader.u8()
        guard type == rawValue else {
            throw .unexpectedMessageType(expected: rawValue, found: type)
        }
        let version = try reader.u8()
        guard version == Self.currentVersion else {
            throw .unsupportedVersion(messageType: type, version: version)
        }
    }
}

/// A message with a canonical binary form.
public protocol WireMessage: Sendable, Hashable {
    /// The exact bytes that travel and are stored.
    var encoded: [UInt8] { get }
    /// Decodes a whole message; trailing bytes are an error.
    init(decoding bytes: [UInt8]) throws(VerificationError)
}

extension ByteReader {
    /// Reads a 64-byte raw ECDSA signature.
    mutating func signature() throws(VerificationError) -> [UInt8] {
        try raw(64)
    }
}
