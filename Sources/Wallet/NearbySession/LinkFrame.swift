import OfflineNotes

/// One write on the link (one BLE characteristic write, one TCP packet), at most the link MTU.
///
/// Every frame starts with one varint `h`; `h & 3` is the kind (docs/protocol.md §12.3):
///
/// | kind | name | rest of `h` | after `h` |
/// | --- | --- | --- | --- |
/// | 0 | DATA | `fin = (h >> 2) & 1`, `offset = h >> 3` | the stream bytes at `offset` (≥ 1) |
/// | 1 | ACK | `received = h >> 2` | nothing |
/// | 2 | RESUME | `received = h >> 2` | 8-byte session id |
/// | 3 | ABORT | `code = h >> 2` | nothing |
public enum LinkFrame: Equatable, Sendable {
    case data(offset: Int, fin: Bool, bytes: [UInt8])
    case ack(received: Int)
    case resume(sessionID: [UInt8], received: Int)
    case abort(UInt64)

    /// Streams are capped so that a hostile peer cannot make us buffer without bound.
    public static let maxStreamBytes = 1 << 20

    public var encoded: [UInt8] {
        var w = ByteWriter(capacity: 16)
        switch self {
        case .data(let offset, let fin, let bytes):
            w.varint(UInt64(offset) << 3 | (fin ? 4 : 0))
            w.raw(bytes)
        case .ack(let received):
            w.varint(UInt64(received) << 2 | 1)
        case .resume(let id, let received):
            w.varint(UInt64(received) << 2 | 2)
            w.raw(id)
        case .abort(let code):
            w.varint(code << 2 | 3)
        }
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(NearbyError) {
        var r = ByteReader(bytes)
        do {
            let h = try r.varint("frame header")
            let value = h >> 2
            switch h & 3 {
            case 0:
                let offset = h >> 3
                guard offset <= UInt64(Self.maxStreamBytes), r.remaining > 0,
                    Int(offset) + r.remaining <= Self.maxStreamBytes
                else { throw NearbyError.protocolViolation("data frame empty or beyond the stream limit") }
                self = .data(offset: Int(offset), fin: h & 4 != 0, bytes: try r.raw(r.remaining))
            case 1:
                guard value <= UInt64(Self.maxStreamBytes) else {
                    throw NearbyError.protocolViolation("ack beyond the stream limit")
                }
                try r.expectEnd()
                self = .ack(received: Int(value))
            case 2:
                guard value <= UInt64(Self.maxStreamBytes) else {
                    throw NearbyError.protocolViolation("resume beyond the stream limit")
                }
                let id = try r.raw(8)
                try r.expectEnd()
                self = .resume(sessionID: id, received: Int(value))
            default:
                try r.expectEnd()
                self = .abort(value)
            }
        } catch let error as NearbyError {
            throw error
        } catch {
            throw .protocolViolation("malformed frame: \(error)")
        }
    }

    /// The DATA frames that carry `stream` from offset `start` on at `mtu` (docs/protocol.md
    /// §12.3): each frame as long as the MTU allows with its header, never past the end of a
    /// record, and `fin` on the frame that ends one. `recordEnds` are the offsets where records
    /// end, ascending; the stream ends at the last. The sender's cut, and the vectors' (a
    /// retransmission starts at the first unacknowledged byte).
    public static func cut(_ stream: [UInt8], recordEnds: [Int], from start: Int, mtu: Int) -> [LinkFrame] {
        var out: [LinkFrame] = []
        var next = start
        while next < stream.count {
            let header = dataHeaderSize(offset: next)
            let recordEnd = recordEnds.first { $0 > next } ?? stream.count
            let count = min(max(1, mtu - header), recordEnd - next)
            let end = next + count
            out.append(.data(offset: next, fin: end == recordEnd, bytes: Array(stream[next..<end])))
            next = end
        }
        return out
    }

    /// Header bytes of a DATA frame at `offset`.
    static func dataHeaderSize(offset: Int) -> Int {
        var v = UInt64(offset) << 3
        var n = 1
        while v >= 0x80 {
            v >>= 7
            n += 1
        }
        return n
    }
}
