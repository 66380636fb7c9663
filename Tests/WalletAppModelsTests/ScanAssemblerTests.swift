import OfflineNotes
import QRPayload
import Testing
import WalletAppModels

@MainActor
@Suite struct ScanAssemblerTests {
    let fixture: MessageFixture
    init() throws { fixture = try MessageFixture() }

    @Test func aRequestInThreeFramesInAnyOrderWithDuplicatesOpensSendPrefilled() throws {
        let request = try fixture.request(1_250)
        let frames = try fixture.frames(request, count: 3)
        try #require(frames.count == 3)
        let scan = ScanAssembler()
        #expect(scan.progress == nil)
        #expect(scan.scan(frames[2]) == .progress(ScanProgress(received: 1, expected: 3)))
        #expect(scan.scan(frames[2]) == .duplicate, "the camera sees a frame many times")
        #expect(scan.scan(frames[0]) == .progress(ScanProgress(received: 2, expected: 3)))
        #expect(scan.progress?.description == "2 of 3")
        #expect(scan.scan(frames[0]) == .duplicate)
        #expect(scan.result == nil)
        #expect(scan.scan(frames[1]) == .complete(.send(request)))
        #expect(scan.result == .send(request))
        guard case .send(let scanned) = scan.result else { return }
        #expect(scanned.amount == 1_250)
        #expect(scanned.payeeName == "Bob's Café")
        #expect(scan.scan(frames[1]) == .ignored, "frames after the end change nothing")
    }

    @Test func aPaymentBundleRoutesToReceiveAndAReceiptToConfirm() throws {
        let bundle = try fixture.bundle(chains: 2)
        let frames = try fixture.frames(bundle)
        #expect(frames.count >= 2, "two chains need two frames at 600 bytes")
        let scan = ScanAssembler()
        var last: ScanAssembler.Event = .ignored
        for frame in frames.reversed() { last = scan.scan(frame) }
        #expect(last == .complete(.receive(bundle)))

        let receipt = try fixture.receipt(for: bundle)
        let other = ScanAssembler()
        #expect(other.scan(try fixture.frames(receipt)[0]) == .complete(.confirm(receipt)))
    }

    @Test func aFrameOfAnotherMessageStartsOver() throws {
        let old = try fixture.frames(try fixture.request(100), count: 3)
        let new = try fixture.frames(try fixture.request(200, name: "Regenerated"), count: 3)
        let scan = ScanAssembler()
        scan.scan(old[0])
        scan.scan(old[1])
        #expect(scan.scan(new[2]) == .restarted(ScanProgress(received: 1, expected: new.count)))
        #expect(scan.progress == ScanProgress(received: 1, expected: new.count), "the old frames are dropped")
        scan.scan(new[0])
        #expect(scan.scan(old[2]) == .restarted(ScanProgress(received: 1, expected: old.count)), "the latest code wins")
        for frame in new { scan.scan(frame) }
        #expect(scan.result == .send(try fixture.request(200, name: "Regenerated")))
    }

    @Test func manualEntryTakesTheSamePath() throws {
        let request = try fixture.request(990)
        let frames = try fixture.frames(request, count: 4)
        let scan = ScanAssembler()
        #expect(scan.enter("  \n \n") == .failed(.nothingEntered))
        #expect(
            scan.enter(frames.dropLast().joined(separator: "\r\n"))
                == .failed(.incomplete(received: frames.count - 1, expected: frames.count)))
        #expect(scan.error == .incomplete(received: frames.count - 1, expected: frames.count))
        #expect(
            scan.enter("  \(frames.last!)  \n") == .complete(.send(request)),
            "pasted rest completes the camera's and paste's frames")
        #expect(scan.error == nil)

        let pasted = ScanAssembler()
        #expect(pasted.enter(frames.reversed().joined(separator: "\n")) == .complete(.send(request)))
    }

    @Test func badInputGivesTypedErrors() throws {
        let scan = ScanAssembler()
        #expect(scan.scan("https://example.com") == .failed(.notAWalletCode))
        #expect(scan.error == .notAWalletCode)
        #expect(scan.scan("OW:!!") == .failed(.notAWalletCode), "not Base45")
        // A frame of a newer version: version byte 2.
        #expect(scan.scan(QRFrames.prefix + Base45.encode([2, 0, 1, 0, 0, 0, 0, 1])) == .failed(.unsupportedVersion(2)))
        #expect(scan.scan(QRFrames.prefix + Base45.encode([1, 3, 2, 0, 0, 0, 0])) == .failed(.unreadable("frame 3 of 2")))

        // A whole, checksummed message that is a note, not a payment message.
        let note = try fixture.issuer.issue(100, to: fixture.alice.publicKey, now: fixture.now)
        #expect(scan.scan(try fixture.frames(note)[0]) == .failed(.notAPaymentMessage(type: note.encoded[0])))
        // Whole and checksummed but not decodable as its type.
        let garbage: [UInt8] = [MessageType.paymentRequest.rawValue, 1, 0xFF]
        guard case .failed(.invalidMessage) = scan.scan(try QRFrames.encode(garbage)[0]) else {
            Issue.record("a damaged request must be invalidMessage")
            return
        }
        #expect(scan.result == nil)
        #expect(scan.progress == nil, "a useless message leaves nothing collected")
    }

    @Test func aMisreadFrameStartsOverAndAGoodOneClearsTheError() throws {
        let request = try fixture.request(500)
        let frames = try fixture.frames(request, count: 3)
        // Frame 1 re-encoded with a flipped payload byte: right header, wrong content.
        var bytes = try #require(Base45.decode(String(frames[1].dropFirst(QRFrames.prefix.count))))
        bytes[bytes.count - 1] ^= 0x01
        let misread = QRFrames.prefix + Base45.encode(bytes)
        let scan = ScanAssembler()
        scan.scan(frames[0])
        scan.scan(misread)
        #expect(scan.scan(frames[2]) == .failed(.unreadable("a frame was misread")))
        #expect(scan.progress == nil, "the poisoned set is dropped")
        #expect(scan.scan(frames[2]) == .progress(ScanProgress(received: 1, expected: 3)))
        #expect(scan.error == nil)
        scan.scan(frames[0])
        #expect(scan.scan(frames[1]) == .complete(.send(request)))
    }

    @Test func resetScansAgain() throws {
        let request = try fixture.request(700)
        let frame = try fixture.frames(request)[0]
        let scan = ScanAssembler()
        scan.scan(frame)
        scan.reset()
        #expect(scan.result == nil && scan.progress == nil && scan.error == nil)
        #expect(scan.scan(frame) == .complete(.send(request)))
    }

    @Test func routeIsTheSameForBytes() throws {
        let request = try fixture.request(1)
        #expect(try ScanAssembler.route(request.encoded) == .send(request))
        #expect(throws: ScanError.notAPaymentMessage(type: nil)) { try ScanAssembler.route([]) }
        #expect(throws: ScanError.notAPaymentMessage(type: 0x42)) { try ScanAssembler.route([0x42, 1]) }
    }
}
