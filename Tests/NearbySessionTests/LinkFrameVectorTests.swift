import Foundation
import OfflineNotes
import TestSupport
import Testing

@testable import NearbySession

/// docs/vectors/link-frames.json (docs/protocol.md §12.3): every frame decodes to the listed
/// kind and fields, or is a protocol violation; valid frames re-encode to the same bytes.
@Suite struct LinkFrameVectorTests {
    @Test func everyFrameDecodesAsListed() throws {
        let vector = try VectorFiles.load("link-frames")
        let cases = try #require(vector["cases"] as? [[String: Any]])
        #expect(cases.count >= 20)
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let bytes = try VectorFiles.bytes(c["hex"])
            guard c["expect"] as? String == "ok" else {
                #expect(c["expect"] as? String == "protocol_violation", "\(name)")
                #expect(throws: NearbyError.self, "\(name)") { try LinkFrame(decoding: bytes) }
                continue
            }
            let fields = try #require(c["frame"] as? [String: Any])
            let expected: LinkFrame
            switch fields["kind"] as? String {
            case "data":
                expected = .data(
                    offset: try #require(fields["offset"] as? Int), fin: try #require(fields["fin"] as? Bool),
                    bytes: try VectorFiles.bytes(fields["bytes"]))
            case "ack": expected = .ack(received: try #require(fields["received"] as? Int))
            case "resume":
                expected = .resume(
                    sessionID: try VectorFiles.bytes(fields["session_id"]),
                    received: try #require(fields["received"] as? Int))
            case "abort": expected = .abort(UInt64(try #require(fields["code"] as? Int)))
            default: throw VectorError.unknownKind(name)
            }
            #expect(try LinkFrame(decoding: bytes) == expected, "\(name)")
            #expect(expected.encoded == bytes, "\(name): re-encodes")
        }
    }

    enum VectorError: Error { case unknownKind(String) }
}

/// docs/vectors/link-streams.json (docs/protocol.md §12.3): a reader puts DATA frames back in
/// order and hands out exactly the listed records, or fails at the listed frame.
@Suite struct LinkStreamVectorTests {
    @Test func everyStreamReassemblesAsListed() throws {
        let cases = try #require(try VectorFiles.load("link-streams")["cases"] as? [[String: Any]])
        #expect(cases.count >= 6)
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let frames = try #require(c["frames"] as? [String]).map { try LinkFrame(decoding: try VectorFiles.bytes($0)) }
            let expected = try #require(c["records"] as? [String]).map { try VectorFiles.bytes($0) }
            let failsAt = c["fails_at"] as? Int
            var inbox = Inbox()
            var records: [[UInt8]] = []
            var failed: Int?
            for (i, frame) in frames.enumerated() {
                guard case .data(let offset, let fin, let bytes) = frame else {
                    Issue.record("\(name): frame \(i) is not DATA")
                    break
                }
                do { records += try inbox.take(offset: offset, fin: fin, data: bytes) } catch {
                    failed = i
                    break
                }
            }
            #expect(records == expected, "\(name)")
            #expect(failed == failsAt, "\(name)")
        }
    }

    /// The `send` cases: a sender holding `records` cuts exactly `frames` at `mtu`, from offset
    /// `from` when given (a retransmission after the peer acknowledged the bytes before it).
    @Test func everySenderCutsAsListed() throws {
        let cases = try #require(try VectorFiles.load("link-streams")["send"] as? [[String: Any]])
        #expect(cases.count >= 3)
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let mtu = try #require(c["mtu"] as? Int)
            let expected = try #require(c["frames"] as? [String]).map { try VectorFiles.bytes($0) }
            var outbox = Outbox()
            for record in try #require(c["records"] as? [String]) { outbox.append(record: try VectorFiles.bytes(record)) }
            var frames = outbox.frames(mtu: mtu, now: .zero, rto: .seconds(1))
            if let from = c["from"] as? Int {
                try outbox.rewind(to: from, now: .zero)
                frames = outbox.frames(mtu: mtu, now: .zero, rto: .seconds(1))
            }
            #expect(frames.map(\.encoded) == expected, "\(name)")
            #expect(frames.allSatisfy { $0.encoded.count <= mtu }, "\(name): a frame longer than the MTU")
        }
    }
}
