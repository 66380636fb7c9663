#if os(Linux)
import Foundation
import PropertyBased
import QRImage
import QRPayload
import Testing

@Suite("QR images through libqrencode, PNG and zbar")
struct QRImageTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "qr-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The round trip: random payloads of 1 B to 8 KB, framed, drawn as PNG files,
    /// scanned back by zbar in shuffled order and reassembled bit for bit.
    @Test func randomPayloadsRoundTripThroughPNGAndZbar() async throws {
        let directory = self.directory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await propertyCheck(count: 12, input: Gen.uint8().array(of: 1...8_192)) { payload in
            var frames = try QRFrames.encode(payload)
            frames.shuffle()
            var assembler = QRFrames.Assembler()
            var result: [UInt8]?
            for (i, frame) in frames.enumerated() {
                let path = "\(directory)/frame-\(payload.count)-\(i).png"
                try QRSymbol(frame).writePNG(to: path)
                let scanned = try QRScanner.scan(pngAt: path)
                #expect(scanned == [frame])
                for text in scanned { result = try assembler.add(text) ?? result }
            }
            #expect(result == payload)
        }
        // The edges, always.
        for size in [1, 8_192] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var assembler = QRFrames.Assembler()
            var result: [UInt8]?
            for (i, frame) in try QRFrames.encode(payload).enumerated() {
                let path = "\(directory)/edge-\(size)-\(i).png"
                try QRSymbol(frame).writePNG(to: path)
                for text in try QRScanner.scan(pngAt: path) { result = try assembler.add(text) ?? result }
            }
            #expect(result == payload)
        }
    }

    @Test func alphanumericFramesNeedSmallerSymbolsThanBinary() throws {
        let frame = try QRFrames.encode(Array(repeating: 0xA5, count: 341))
        let symbol = try QRSymbol(frame[0], correction: .medium)
        // 525 alphanumeric characters fit version 13 at level M; as bytes they would need 15+.
        #expect(symbol.version <= 14)
        #expect(symbol.size == 17 + 4 * symbol.version)
    }

    @Test func refusesTextTooLongForOneSymbol() {
        #expect(throws: QRImageError.tooLarge(characters: 5_000)) { try QRSymbol(String(repeating: "A", count: 5_000)) }
    }

    @Test func reportsFilesWithoutACode() throws {
        let path = NSTemporaryDirectory() + "blank-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PNGFile.write(gray: [UInt8](repeating: 255, count: 64 * 64), width: 64, height: 64, to: path)
        #expect(throws: QRImageError.noSymbol(path: path)) { try QRScanner.scan(pngAt: path) }
        #expect(throws: QRImageError.self) { try QRScanner.scan(pngAt: "/nonexistent/file.png") }
    }

    @Test func terminalRenderingHasOneLinePerTwoModuleRows() throws {
        let symbol = try QRSymbol("OW:HELLO")
        let lines = symbol.terminalText().split(separator: "\n")
        #expect(lines.count == (symbol.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == symbol.size + 4 })
    }
}
#endif
