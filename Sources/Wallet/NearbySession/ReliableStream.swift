/// The sending half of one direction: a byte stream cut into records, sent as DATA frames,
/// kept until acknowledged and sent again after a timeout or a resume (go-back-N).
struct Outbox: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Offsets where records end, ascending; a DATA frame never crosses one and ends with
    /// `fin` exactly at one.
    private var recordEnds: [Int] = []
    private(set) var acked = 0
    private var next = 0
    /// Where the retransmission timer counts from: the peer's last progress, or the moment the
    /// driver finished writing our last data to the link, whichever is later. Frames wait in
    /// the link's own queue before the radio takes them (a Bluetooth LE link at a small MTU can
    /// take longer than the timeout to take one burst), and that wait is not the peer's silence.
    private var timerStart: Duration = .zero
    /// Data went out from `frames` and `written(now:)` has not been told yet.
    private var writing = false
    private var backoff = 0
    private(set) var retransmissions = 0

    var isFullyAcked: Bool { acked == bytes.count }

    mutating func append(record: [UInt8]) {
        bytes += record
        recordEnds.append(bytes.count)
    }

    /// The peer has every byte before `received`.
    mutating func acknowledge(_ received: Int, now: Duration) throws(NearbyError) {
        guard received <= bytes.count else { throw .protocolViolation("peer acknowledged bytes never sent") }
        if received > acked {
            acked = received
            timerStart = max(timerStart, now)
            backoff = 0
        }
        if next < acked { next = acked }
    }

    /// After a resume: send again from what the peer says it has.
    mutating func rewind(to received: Int, now: Duration) throws(NearbyError) {
        try acknowledge(received, now: now)
        next = acked
        timerStart = now
    }

    /// Frames to send now: new data, or everything unacknowledged once `rto` has passed
    /// without progress (doubling up to 8× while the peer stays silent).
    mutating func frames(mtu: Int, now: Duration, rto: Duration) -> [LinkFrame] {
        if next >= bytes.count, acked < bytes.count, now - timerStart >= rto * (1 << backoff) {
            next = acked
            timerStart = now
            backoff = min(backoff + 1, 3)
            retransmissions += 1
        }
        // Nothing was in flight: the retransmission timer starts with this send.
        if next == acked, next < bytes.count { timerStart = now }
        let out = LinkFrame.cut(bytes, recordEnds: recordEnds, from: next, mtu: mtu)
        next = bytes.count
        if !out.isEmpty { writing = true }
        return out
    }

    /// The frames `frames` returned last have all been written to the link at `now`: the
    /// retransmission timer restarts here.
    mutating func written(now: Duration) {
        guard writing else { return }
        writing = false
        if acked < bytes.count { timerStart = max(timerStart, now) }
    }
}

/// The receiving half of one direction: puts DATA frames back in order (buffering a few that
/// arrive early), and hands out whole records.
struct Inbox: Sendable {
    private(set) var bytes: [UInt8] = []
    private var recordStart = 0
    private var pending: [Int: (fin: Bool, bytes: [UInt8])] = [:]
    /// Offsets known to end a record, beyond `bytes.count`, from frames already consumed.
    private var finAt: Set<Int> = []
    /// An ACK should go out (a record completed, or a frame came twice or early).
    var ackDue = false
    static let maxPendingFrames = 256

    var received: Int { bytes.count }

    /// Takes one DATA frame; returns the records it completed.
    mutating func take(offset: Int, fin: Bool, data: [UInt8]) throws(NearbyError) -> [[UInt8]] {
        let end = offset + data.count
        guard end <= LinkFrame.maxStreamBytes else { throw .protocolViolation("stream beyond the size limit") }
        if end <= bytes.count {
            ackDue = true  // a retransmission: the peer missed our ACK
            return []
        }
        if offset > bytes.count {
            guard pending.count < Self.maxPendingFrames else { throw .protocolViolation("too many frames out of order") }
            pending[offset] = (fin, data)
            ackDue = true
            return []
        }
        var records: [[UInt8]] = []
        append(data[(bytes.count - offset)...], fin: fin, end: end, into: &records)
        // Drain frames that arrived early and now fit.
        while let (offset, frame) = pending.first(where: { $0.key <= bytes.count }) {
            pending[offset] = nil
            let end = offset + frame.bytes.count
            if end > bytes.count {
                append(frame.bytes[(bytes.count - offset)...], fin: frame.fin, end: end, into: &records)
            }
        }
        if !records.isEmpty { ackDue = true }
        return records
    }

    private mutating func append(_ slice: ArraySlice<UInt8>, fin: Bool, end: Int, into records: inout [[UInt8]]) {
        bytes += slice
        if fin { finAt.insert(end) }
        for boundary in finAt.sorted() where boundary <= bytes.count {
            records.append(Array(bytes[recordStart..<boundary]))
            recordStart = boundary
            finAt.remove(boundary)
        }
    }
}
