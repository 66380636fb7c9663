import Crypto
import OfflineNotes
import QRPayload

/// `qr-frames.json` (§9): writers (message → frames) and readers (frames in scan order → one
/// result per frame). Bytes only, no signature: every run writes the same file.
func qrFrameVectors() throws -> [String: Any] {
    var writes: [[String: Any]] = []
    for (name, size) in [("empty", 0), ("one_byte", 1), ("exactly_600", 600), ("601", 601), ("1500", 1_500)] {
        let message = pattern(size)
        writes.append(["name": name, "message": hex(message), "frames": try QRFrames.encode(message)])
    }
    let qrMessage = pattern(1_500)
    let qrFrames = try QRFrames.encode(qrMessage)
    let qrSum = Array(SHA256.hash(data: qrMessage).prefix(4))
    let otherFrames = try QRFrames.encode(pattern(1_499))
    var misread = Array(qrMessage[600..<1_200])
    misread[0] ^= 1
    let misreadFrame = qrFrame([1, 1, 3] + qrSum, misread)
    var reads = QRReadCases()
    reads.add("in_order", "three frames in order", qrFrames, ["incomplete", "incomplete", "complete"], message: qrMessage)
    reads.add(
        "any_order_with_duplicate", "frames 2, 0, 2 again, 1", [qrFrames[2], qrFrames[0], qrFrames[2], qrFrames[1]],
        ["incomplete", "incomplete", "incomplete", "complete"], message: qrMessage)
    reads.add("empty_message", "the one frame of the empty message", try QRFrames.encode([]), ["complete"], message: [])
    reads.add(
        "not_a_frame", "text without the prefix, the prefix in lower case, and a frame with a trailing newline, then the frames",
        ["https://example.com", "ow:" + String(qrFrames[0].dropFirst(3)), qrFrames[0] + "\n"] + qrFrames,
        ["not_a_frame", "not_a_frame", "not_a_frame", "incomplete", "incomplete", "complete"], message: qrMessage)
    reads.add(
        "bad_base45", "a character outside the alphabet (lower case), a triple above 65535, a leftover single character",
        ["OW:" + String(qrFrames[0].dropFirst(3)).lowercased(), "OW:GGW", qrFrame([1, 0, 1] + qrSum, [0x41]) + "0"],
        ["not_a_frame", "not_a_frame", "not_a_frame"])
    reads.add(
        "short_header", "an empty frame after the prefix, and one of 6 bytes", ["OW:", qrFrame([1, 0, 1, 0, 0, 0], [])],
        ["malformed", "malformed"])
    reads.add(
        "other_version", "a frame of version 2 (otherwise frame 0 of the message), then the message's frames",
        [qrFrame([2, 0, 3] + qrSum, Array(qrMessage[0..<600]))] + qrFrames,
        ["unsupported_version", "incomplete", "incomplete", "complete"], message: qrMessage)
    reads.add("count_zero", "count 0", [qrFrame([1, 0, 0] + qrSum, [1])], ["malformed"])
    reads.add("index_not_below_count", "index 3 of count 3", [qrFrame([1, 3, 3] + qrSum, [1])], ["malformed"])
    reads.add(
        "version_before_count", "version 2 with count 0: the version is checked first", [qrFrame([2, 0, 0] + qrSum, [1])],
        ["unsupported_version"])
    reads.add(
        "mixed_checksum",
        "frame 0 of one message, then frame 1 of another of the same count (other checksum), then the rest of the first",
        [qrFrames[0], otherFrames[1], qrFrames[1], qrFrames[2]], ["incomplete", "mixed_payloads", "incomplete", "complete"],
        message: qrMessage)
    reads.add(
        "mixed_count", "frame 0 of a three-frame message, then a frame with the same checksum and count 2",
        [qrFrames[0], qrFrame([1, 1, 2] + qrSum, [1])], ["incomplete", "mixed_payloads"])
    reads.add(
        "misread_then_rescanned",
        "frame 1 misread (one bit), the others, then frame 1 scanned again: the later frame replaces the earlier one",
        [qrFrames[0], misreadFrame, qrFrames[2], qrFrames[1]], ["incomplete", "incomplete", "checksum_mismatch", "complete"],
        message: qrMessage)
    reads.add(
        "chunk_sizes_are_free", "a reader takes chunks of any size, even empty: 1500 bytes as 0, 1 and 1499",
        [
            qrFrame([1, 0, 3] + qrSum, []), qrFrame([1, 1, 3] + qrSum, [qrMessage[0]]),
            qrFrame([1, 2, 3] + qrSum, Array(qrMessage[1...])),
        ], ["incomplete", "incomplete", "complete"], message: qrMessage)
    // §9: a reader that answered complete keeps its frames.
    reads.add(
        "after_complete",
        """
        the three frames, then frame 1 again, frame 1 misread, frame 1 again, and frame 0 of another message: a complete \
        reader keeps its chunks and answers each frame as rule 6 says
        """,
        [qrFrames[0], qrFrames[1], qrFrames[2], qrFrames[1], misreadFrame, qrFrames[1], otherFrames[0]],
        ["incomplete", "incomplete", "complete", "complete", "checksum_mismatch", "complete", "mixed_payloads"],
        message: qrMessage)
    return [
        "comment": """
        QR frames (docs/protocol.md §9). 'write': a writer cuts 'message' into exactly 'frames'. 'read': a fresh reader \
        given 'frames' in order answers each with 'results': 'incomplete', 'complete' (the reassembled message is \
        'message') or an error: not_a_frame, malformed, unsupported_version, mixed_payloads, checksum_mismatch.
        """,
        "chunk_size": 600,
        "write": writes,
        "read": reads.list,
    ]
}

/// A frame's text: the prefix and the Base45 of `header` and `chunk`, however wrong they are.
private func qrFrame(_ header: [UInt8], _ chunk: [UInt8]) -> String { QRFrames.prefix + Base45.encode(header + chunk) }

/// The `read` cases of `qr-frames.json`, in the order they are added.
private struct QRReadCases {
    private(set) var list: [[String: Any]] = []

    mutating func add(_ name: String, _ why: String, _ frames: [String], _ results: [String], message: [UInt8]? = nil) {
        var fields: [String: Any] = ["name": name, "description": why, "frames": frames, "results": results]
        if let message { fields["message"] = hex(message) }
        list.append(fields)
    }
}
