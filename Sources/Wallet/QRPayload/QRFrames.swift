import Crypto

/// A payload split into QR-sized frames that can be scanned in any order.
///
/// Each frame is the text `OW:` followed by Base45 of
///
///     version(1)=1 ‖ index(1) ‖ count(1) ‖ checksum(4) ‖ chunk
///
/// where `checksum` is the first 4 bytes of SHA-256 of the whole payload: it tells frames of
/// different payloads apart and proves the reassembled payload whole. Everything in a frame is
/// QR-alphanumeric, so a scanner's text mode cannot alter it.
public enum QRFrames {
    public static let prefix = "OW:"
    static let version: UInt8 = 1
    static let headerSize = 7
    /// At most 255 frames, each index fits one byte.
    public static let maxFrames = 255

    public enum Error: Swift.Error, Equatable, Sendable {
        /// Not one of our frames (wrong prefix or characters).
        case notAFrame
        case unsupportedVersion(UInt8)
        case malformed(String)
        /// A frame of another payload (other checksum or count) than the ones collected.
        case mixedPayloads
        /// All frames arrived but they do not hash to the checksum: a frame was altered.
        case checksumMismatch
        case tooLarge(bytes: Int, maxBytes: Int)

        /// Stable name of the error, as docs/protocol.md §9 and docs/vectors/qr-frames.json spell it.
        public var code: String {
            switch self {
            case .notAFrame: "not_a_frame"
            case .unsupportedVersion: "unsupported_version"
            case .malformed: "malformed"
            case .mixedPayloads: "mixed_payloads"
            case .checksumMismatch: "checksum_mismatch"
            case .tooLarge: "too_large"
            }
        }
    }

    /// Splits `payload` into frames of at most `chunkSize` payload bytes each.
    public static func encode(_ payload: [UInt8], chunkSize: Int = 600) throws(Error) -> [String] {
        let chunkSize = max(1, chunkSize)
        let count = max(1, (payload.count + chunkSize - 1) / chunkSize)
        guard count <= maxFrames else { throw .tooLarge(bytes: payload.count, maxBytes: maxFrames * chunkSize) }
        let checksum = Array(SHA256.hash(data: payload).prefix(4))
        return (0..<count).map { i in
            let chunk = payload[min(payload.count, i * chunkSize)..<min(payload.count, (i + 1) * chunkSize)]
            return prefix + Base45.encode([version, UInt8(i), UInt8(count)] + checksum + chunk)
        }
    }

    /// Collects frames in any order (duplicates are fine) until the payload is complete.
    public struct Assembler: Sendable {
        private var checksum: [UInt8]?
        private var count: Int?
        private var chunks: [Int: [UInt8]] = [:]

        public init() {}

        /// Frames received so far and the number expected (nil before the first frame).
        public var progress: (received: Int, expected: Int?) { (chunks.count, count) }

        /// Adds one scanned frame; returns the payload once every frame is in.
        public mutating func add(_ text: String) throws(Error) -> [UInt8]? {
            guard text.hasPrefix(QRFrames.prefix), let bytes = Base45.decode(String(text.dropFirst(QRFrames.prefix.count))) else {
                throw .notAFrame
            }
            guard bytes.count >= QRFrames.headerSize else { throw .malformed("frame shorter than its header") }
            guard bytes[0] == QRFrames.version else { throw .unsupportedVersion(bytes[0]) }
            let index = Int(bytes[1])
            let total = Int(bytes[2])
            let sum = Array(bytes[3..<7])
            guard total >= 1, index < total else { throw .malformed("frame \(index) of \(total)") }
            if let checksum, let count {
                guard checksum == sum, count == total else { throw .mixedPayloads }
            } else {
                checksum = sum
                count = total
            }
            chunks[index] = Array(bytes[7...])
            guard chunks.count == total else { return nil }
            let payload = (0..<total).flatMap { chunks[$0] ?? [] }
            guard Array(SHA256.hash(data: payload).prefix(4)) == sum else { throw .checksumMismatch }
            return payload
        }
    }
}
