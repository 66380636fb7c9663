import NearbySession

/// `link-streams.json` (§12.3): DATA frames in arrival order → the records a reader hands out,
/// or the frame at which it fails (`cases`); records → the DATA frames a sender cuts (`send`).
/// Bytes only, no signature: every run writes the same file.
func linkStreamVectors() -> [String: Any] {
    let recordA = pattern(34), recordB = Array(pattern(16).reversed())
    var cases = StreamCases()
    let inOrder: [LinkFrame] = [
        .data(offset: 0, fin: true, bytes: recordA), .data(offset: 34, fin: false, bytes: Array(recordB[..<10])),
        .data(offset: 44, fin: true, bytes: Array(recordB[10...])),
    ]
    cases.add("in_order", "a 34-byte record in one frame, a 16-byte record in two", inOrder, records: [recordA, recordB])
    cases.add(
        "reordered_and_duplicated", "the same frames arriving 3, 1, 2, 2: the early one waits, the duplicate is ignored",
        [inOrder[2], inOrder[0], inOrder[1], inOrder[1]], records: [recordA, recordB])
    cases.add(
        "recut_overlap", "a retransmission cut differently (bytes 0–19, then 10–33 with fin): the overlap is taken once",
        [.data(offset: 0, fin: false, bytes: Array(recordA[..<20])), .data(offset: 10, fin: true, bytes: Array(recordA[10...]))],
        records: [recordA])
    var altered = Array(recordA[5..<34])
    altered[0] ^= 0xFF
    cases.add(
        "overlap_not_compared",
        """
        bytes below the reader's position are dropped without comparing them: the first copy stands (AES-GCM would catch a \
        change)
        """,
        [.data(offset: 0, fin: false, bytes: Array(recordA[..<10])), .data(offset: 5, fin: true, bytes: altered)],
        records: [recordA])
    cases.add(
        "fin_from_an_early_frame",
        "the record's last frame (with fin) arrives first and waits; the record completes when the gap is filled",
        [.data(offset: 20, fin: true, bytes: Array(recordA[20...])), .data(offset: 0, fin: false, bytes: Array(recordA[..<20]))],
        records: [recordA])
    cases.add(
        "too_many_early_frames", "257 one-byte frames after a gap at offset 0: 256 may wait, the 257th is a protocol error",
        (1...257).map { LinkFrame.data(offset: $0, fin: false, bytes: [UInt8($0 & 0xFF)]) }, records: [], failsAt: 256)
    // §12.3: a fin on a frame the reader ignores, and early frames at an offset already waiting.
    cases.add(
        "fin_of_an_ignored_frame",
        """
        bytes 0–33 without fin, the same bytes again with fin, then 16 bytes with fin: a frame ending at or before the \
        reader's position is ignored whole, its fin too, so one 50-byte record
        """,
        [
            .data(offset: 0, fin: false, bytes: recordA), .data(offset: 0, fin: true, bytes: recordA),
            .data(offset: 34, fin: true, bytes: recordB),
        ], records: [recordA + recordB])
    cases.add(
        "early_frame_replaced",
        """
        bytes 20–24 arrive early, then bytes 20–33 with fin at the same offset, then bytes 0–19: the later early frame \
        replaces the waiting one
        """,
        [
            .data(offset: 20, fin: false, bytes: Array(recordA[20..<25])),
            .data(offset: 20, fin: true, bytes: Array(recordA[20...])),
            .data(offset: 0, fin: false, bytes: Array(recordA[..<20])),
        ], records: [recordA])
    let gapRecord = pattern(257)
    func gapFrame(_ offset: Int, fin: Bool = false) -> LinkFrame {
        .data(offset: offset, fin: fin, bytes: [gapRecord[offset]])
    }
    cases.add(
        "early_frames_counted_by_offset",
        """
        255 one-byte frames after a gap at offset 0, offset 1 again (it replaces the waiting one), offset 256 with fin (the \
        256th waiting), then offset 0: one 257-byte record
        """,
        (1...255).map { gapFrame($0) } + [gapFrame(1), gapFrame(256, fin: true), gapFrame(0)], records: [gapRecord])
    cases.add(
        "early_frame_again_while_256_wait",
        """
        256 one-byte frames wait after a gap at offset 0, then offset 1 again: a protocol error, though it would only replace \
        a waiting frame
        """,
        (1...256).map { gapFrame($0) } + [gapFrame(1)], records: [], failsAt: 256)
    // §12.3: how a sender cuts its records into DATA frames.
    var sends = SendCases()
    sends.add(
        "cut_to_the_mtu",
        """
        records of 34 and 16 bytes at MTU 20: each frame as long as the MTU allows with its header (1 byte below offset 16, \
        then 2), never past the end of a record
        """,
        records: [recordA, recordB], mtu: 20)
    sends.add(
        "cut_at_record_ends",
        "the same records at MTU 185: one frame each, never one frame for the end of a record and the start of the next",
        records: [recordA, recordB], mtu: 185)
    sends.add(
        "cut_again_from_the_first_unacknowledged_byte",
        "a 100-byte record sent again from byte 50 (the first byte not acknowledged) at MTU 20: re-cut from there",
        records: [pattern(100)], mtu: 20, from: 50)
    return [
        "comment": """
        Nearby-session streams (docs/protocol.md §12.3). 'cases': a fresh reader given the DATA frames of 'frames' (hex, \
        in arrival order) hands out exactly 'records' (hex, in order); with 'fails_at', the frame at that index (0-based) \
        is a protocol error and the records before it are as listed. 'send': a sender holding 'records' cuts exactly \
        'frames' at 'mtu', from offset 'from' if given, else 0.
        """,
        "cases": cases.list,
        "send": sends.list,
    ]
}

/// The reader cases of `link-streams.json`, in the order they are added.
private struct StreamCases {
    private(set) var list: [[String: Any]] = []

    /// Adds case `name`: a fresh reader given `frames` hands out `records`, and fails at frame
    /// `failsAt` when given.
    mutating func add(_ name: String, _ why: String, _ frames: [LinkFrame], records: [[UInt8]], failsAt: Int? = nil) {
        var fields: [String: Any] = [
            "name": name, "description": why, "frames": frames.map { hex($0.encoded) }, "records": records.map(hex),
        ]
        if let failsAt { fields["fails_at"] = failsAt }
        list.append(fields)
    }
}

/// The `send` cases of `link-streams.json`, in the order they are added.
private struct SendCases {
    private(set) var list: [[String: Any]] = []

    /// Adds case `name`: the frames a sender holding `records` cuts at `mtu` from offset `from`
    /// (default 0).
    mutating func add(_ name: String, _ why: String, records: [[UInt8]], mtu: Int, from: Int? = nil) {
        var stream: [UInt8] = []
        var ends: [Int] = []
        for record in records {
            stream += record
            ends.append(stream.count)
        }
        let frames = LinkFrame.cut(stream, recordEnds: ends, from: from ?? 0, mtu: mtu)
        var fields: [String: Any] = [
            "name": name, "description": why, "records": records.map(hex), "mtu": mtu,
            "frames": frames.map { hex($0.encoded) },
        ]
        if let from { fields["from"] = from }
        list.append(fields)
    }
}
