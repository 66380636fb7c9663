import OfflineNotes

/// `link-frames.json` (§12.3): one nearby-session frame's bytes → what it decodes to, or a
/// protocol violation. Bytes only, no signature: every run writes the same file.
func linkFrameVectors() -> [String: Any] {
    let mib: UInt64 = 1 << 20
    var cases = LinkFrameCases()
    cases.add("data_first", [0x04, 0xAA], ["kind": "data", "offset": 0, "fin": true, "bytes": "aa"])
    cases.add("data_offset_300", varint(300 << 3) + [1, 2, 3], ["kind": "data", "offset": 300, "fin": false, "bytes": "010203"])
    cases.add(
        "data_ends_at_1_mib", varint((mib - 1) << 3 | 4) + [9],
        ["kind": "data", "offset": Int(mib - 1), "fin": true, "bytes": "09"])
    cases.add("data_beyond_1_mib", varint((mib - 1) << 3) + [9, 9], nil)
    cases.add("data_offset_beyond_1_mib", varint((mib + 1) << 3) + [9], nil)
    cases.add("data_empty", [0x00], nil)
    cases.add("data_empty_fin", [0x04], nil)
    cases.add("ack_0", [0x01], ["kind": "ack", "received": 0])
    cases.add("ack_1_mib", varint(mib << 2 | 1), ["kind": "ack", "received": Int(mib)])
    cases.add("ack_beyond_1_mib", varint((mib + 1) << 2 | 1), nil)
    cases.add("ack_trailing_byte", [0x01, 0x00], nil)
    cases.add(
        "resume", varint(341 << 2 | 2) + Array(repeating: 0x5A, count: 8),
        ["kind": "resume", "received": 341, "session_id": hex(Array(repeating: 0x5A, count: 8))])
    cases.add("resume_7_byte_id", [0x02] + Array(repeating: 0x5A, count: 7), nil)
    cases.add("resume_9_byte_id", [0x02] + Array(repeating: 0x5A, count: 9), nil)
    cases.add("abort_busy", [4 << 2 | 3], ["kind": "abort", "code": 4])
    cases.add("abort_unknown_code", varint(1000 << 2 | 3), ["kind": "abort", "code": 1000])
    cases.add("abort_trailing_byte", [0x07, 0x00], nil)
    cases.add("header_not_shortest", [0x81, 0x00], nil)
    cases.add("header_truncated", [0x81], nil)
    cases.add("empty", [], nil)
    return [
        "comment": """
        Nearby-session frames (docs/protocol.md §12.3): decode 'hex' as one frame. 'expect' is 'ok' (then 'frame' gives \
        its kind and fields; 'bytes' and 'session_id' in hex) or 'protocol_violation'.
        """,
        "cases": cases.list,
    ]
}

/// The cases of `link-frames.json`, in the order they are added.
private struct LinkFrameCases {
    private(set) var list: [[String: Any]] = []

    /// Adds case `name`: `bytes` decode to `expect` (kind and fields), or, when nil, are a
    /// protocol violation.
    mutating func add(_ name: String, _ bytes: [UInt8], _ expect: [String: Any]?) {
        var fields: [String: Any] = ["name": name, "hex": hex(bytes)]
        if let expect {
            fields["expect"] = "ok"
            fields["frame"] = expect
        } else {
            fields["expect"] = "protocol_violation"
        }
        list.append(fields)
    }
}
