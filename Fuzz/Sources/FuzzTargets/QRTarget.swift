import QRPayload

/// QR transport (docs/protocol.md §9): Base45 (RFC 9285) and the "OW:" frame reader. The input
/// is text, one scanned frame per line. Each line that Base45-decodes must encode back to the
/// same text (RFC 9285 has one encoding per byte string); each line goes to one `Assembler`,
/// which may only answer or throw its typed error; a payload it completes must hash to the
/// frames' checksum, and the writer's own frames for it must assemble to it again.
enum QRTarget {
    static let name = "qr"

    static let target = FuzzTargets.Target(
        name: name, covers: "QRPayload: Base45.decode, QRFrames.Assembler", run: run, seeds: seeds)

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var assembler = QRFrames.Assembler()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let frame = String(line)
            if let decoded = Base45.decode(frame), Base45.encode(decoded) != frame {
                fail(name, "Base45 decodes \(frame.utf8.count) characters that encode back differently")
            }
            if frame.hasPrefix(QRFrames.prefix), let body = Base45.decode(String(frame.dropFirst(QRFrames.prefix.count))),
                QRFrames.prefix + Base45.encode(body) != frame
            {
                fail(name, "a frame decodes but encodes back differently")
            }
            let payload: [UInt8]?
            do { payload = try assembler.add(frame) } catch { continue }
            guard let payload else { continue }
            checkPayload(payload)
            // A finished assembler starts nothing new: reset so later lines are read too.
            assembler = QRFrames.Assembler()
        }
    }

    static func checkPayload(_ payload: [UInt8]) {
        guard let frames = try? QRFrames.encode(payload, chunkSize: 600) else {
            // Payloads the reader completes fit in 255 frames of any chunk size it was sent in,
            // but not necessarily in 255 frames of 600 bytes: nothing to compare then.
            return
        }
        var again = QRFrames.Assembler()
        var result: [UInt8]?
        for frame in frames.reversed() {
            do { result = try again.add(frame) } catch { fail(name, "the writer's own frame is refused: \(error)") }
        }
        guard result == payload else { fail(name, "the writer's frames of a completed payload do not assemble to it") }
    }

    /// Every vector message as frames of 600 and of 100 bytes (several frames, out of order).
    static func seeds() throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        for message in Vectors.allMessages {
            for chunk in [600, 100] {
                let frames = try QRFrames.encode(message, chunkSize: chunk)
                out.append(Array(frames.reversed().joined(separator: "\n").utf8))
            }
            out.append(Array(Base45.encode(Array(message.prefix(40))).utf8))
        }
        return out
    }
}
