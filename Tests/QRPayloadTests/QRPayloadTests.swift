import PropertyBased
import QRPayload
import TestSupport
import Testing

@Suite struct Base45Tests {
    /// RFC 9285 §4.3 examples.
    @Test func rfcExamples() {
        #expect(Base45.encode(Array("AB".utf8)) == "BB8")
        #expect(Base45.encode(Array("Hello!!".utf8)) == "%69 VD92EX0")
        #expect(Base45.encode(Array("base-45".utf8)) == "UJCLQE7W581")
        #expect(Base45.decode("QED8WEX0") == Array("ietf!".utf8))
    }

    @Test func invalidInputIsRejected() {
        #expect(Base45.decode("GGW") == nil, "65536 does not fit two bytes")
        #expect(Base45.decode("A") == nil, "dangling character")
        #expect(Base45.decode("ab") == nil, "lowercase is outside the alphabet")
        #expect(Base45.decode("") == [])
    }

    @Test func roundTripsAnyBytes() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...300)) { bytes in
            #expect(Base45.decode(Base45.encode(bytes)) == bytes)
        }
    }
}

@Suite struct QRFrameTests {
    /// Frames arrive in any order, and a frame scanned twice before the payload is complete
    /// (a camera dwelling on one code) is recognised and ignored, not counted as a new frame.
    ///
    /// The payload is drawn as a length and a seed, not as an array: the property library
    /// describes a failing input in its report, and describing an 8 KB array takes minutes.
    @Test func payloadsFrom1ByteTo8KBReassembleInAnyOrder() async throws {
        await propertyCheck(count: 60, input: Gen.int(in: 1...8_192), Gen.int(in: 50...900), Gen.int(in: 0...Int.max)) {
            length, chunk, pick in
            // propertyCheck drops errors its body throws (it runs the body under try?): catch them here.
            #expect(throws: Never.self, "length \(length), chunk \(chunk), seed \(pick)") {
                var state = UInt64(pick) | 1
                let payload = (0..<length).map { _ in
                    // xorshift64: cheap, replayable bytes from the seed.
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    return UInt8(truncatingIfNeeded: state)
                }
                var frames = try QRFrames.encode(payload, chunkSize: chunk)
                frames.shuffle()
                let expected = frames.count
                // The duplicate goes in before the last distinct frame, so the assembler must scan
                // it while it is still collecting (a one-frame payload gets its duplicate after).
                let original = pick % max(1, expected - 1)
                let at = expected > 1 ? original + 1 + pick % (expected - 1 - original) : 1
                frames.insert(frames[original], at: at)
                var assembler = QRFrames.Assembler()
                var result: [UInt8]?
                var scanned = 0
                for (position, frame) in frames.enumerated() where result == nil {
                    #expect(frame.allSatisfy { "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".contains($0) })
                    let before = assembler.progress.received
                    result = try assembler.add(frame)
                    scanned += 1
                    if position == at, expected > 1 {
                        #expect(result == nil, "the duplicate completed the payload")
                        #expect(assembler.progress.received == before, "the duplicate counted as a new frame")
                    }
                }
                #expect(result == payload)
                #expect(assembler.progress.received == expected && assembler.progress.expected == expected)
                #expect(
                    scanned == frames.count || expected == 1, "the duplicate was never scanned: \(scanned) of \(frames.count)")
            }
        }
    }

    @Test func incompleteMixedAlteredAndForeignFramesAreRefused() throws {
        let a = try QRFrames.encode(Array(repeating: 1, count: 1_000), chunkSize: 300)
        let b = try QRFrames.encode(Array(repeating: 2, count: 1_000), chunkSize: 300)
        var assembler = QRFrames.Assembler()
        #expect(try assembler.add(a[0]) == nil)
        #expect(assembler.progress.received == 1 && assembler.progress.expected == 4)
        #expect(throws: QRFrames.Error.mixedPayloads) { try assembler.add(b[1]) }
        #expect(throws: QRFrames.Error.notAFrame) { try assembler.add("https://example.com") }
        // An altered character inside a chunk is caught by the checksum once all frames are in.
        var bytes = try #require(Base45.decode(String(a[2].dropFirst(QRFrames.prefix.count))))
        bytes[bytes.count - 1] ^= 0x01
        _ = try assembler.add(a[1])
        _ = try assembler.add(QRFrames.prefix + Base45.encode(bytes))
        #expect(throws: QRFrames.Error.checksumMismatch) { try assembler.add(a[3]) }
        #expect(throws: QRFrames.Error.tooLarge(bytes: 300, maxBytes: 255)) {
            try QRFrames.encode(Array(repeating: 0, count: 300), chunkSize: 1)
        }
    }
}

/// docs/vectors/qr-frames.json (docs/protocol.md §9): writers cut exactly these frames, and a
/// reader answers every scanned frame with exactly the listed result.
@Suite struct QRFrameVectorTests {
    @Test func writersAndReadersFollowTheVectors() throws {
        let vectors = try VectorFiles.load("qr-frames")
        #expect(vectors["chunk_size"] as? Int == 600)
        let writes = try #require(vectors["write"] as? [[String: Any]])
        #expect(writes.count >= 5)
        for c in writes {
            #expect(try QRFrames.encode(try VectorFiles.bytes(c["message"])) == c["frames"] as? [String], "\(c["name"] ?? "?")")
        }
        let reads = try #require(vectors["read"] as? [[String: Any]])
        var seen = Set<String>()
        for c in reads {
            let name = c["name"] as? String ?? "?"
            let frames = try #require(c["frames"] as? [String])
            let expected = try #require(c["results"] as? [String])
            #expect(frames.count == expected.count, "\(name)")
            var reader = QRFrames.Assembler()
            var results: [String] = []
            for frame in frames {
                do {
                    if let message = try reader.add(frame) {
                        results.append("complete")
                        #expect(message == (try VectorFiles.bytes(c["message"])), "\(name)")
                    } else {
                        results.append("incomplete")
                    }
                } catch let error as QRFrames.Error {
                    results.append(error.code)
                }
            }
            #expect(results == expected, "\(name)")
            seen.formUnion(results)
        }
        #expect(
            seen == [
                "incomplete", "complete", "not_a_frame", "malformed", "unsupported_version", "mixed_payloads",
                "checksum_mismatch",
            ])
    }
}
