#if os(Linux)
import Foundation
import PropertyBased
import QRImage
import QRPayload
import TestSupport
import Testing

@Suite("QR images through libqrencode, PNG and zbar")
struct QRImageTests {
    /// Removed with its PNG files when the test ends (one suite instance per test).
    let scratch: TemporaryDirectory
    var directory: String { scratch.path }
    init() throws { scratch = try TemporaryDirectory("qr-tests") }

    /// The round trip: random payloads of 1 B to 8 KB, framed, drawn as PNG files,
    /// scanned back by zbar in shuffled order and reassembled bit for bit.
    @Test func randomPayloadsRoundTripThroughPNGAndZbar() async throws {
        let directory = self.directory
        // The payload is drawn as a length and a seed (describing a failing 8 KB array in the
        // property report takes minutes), and the body's errors are caught here: propertyCheck
        // runs its body under try?, so a thrown error would otherwise pass silently.
        await propertyCheck(count: 12, input: Gen.int(in: 1...8_192), Gen.int(in: 0...Int.max)) { length, seed in
            #expect(throws: Never.self, "length \(length), seed \(seed)") {
                var random = SplitMix64(seed: UInt64(seed))
                let payload = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                var frames = try QRFrames.encode(payload)
                frames.shuffle(using: &random)
                var assembler = QRFrames.Assembler()
                var result: [UInt8]?
                for (i, frame) in frames.enumerated() {
                    let path = "\(directory)/frame-\(payload.count)-\(i).png"
                    try QRSymbol(frame).writePNG(to: path)
                    let scanned = try QRScanner.scan(pngAt: path)
                    #expect(scanned == [frame])
                    for text in scanned { result = try assembler.add(text) ?? result }
                }
                #expect(result == payload, "length \(length), seed \(seed)")
            }
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

    /// The terminal drawing reads back: its characters rasterized (each half block is two
    /// module rows, coloured as the escape codes say) scan with zbar to the same text, with the
    /// 4-module quiet zone the drawing itself provides (no margin added here).
    @Test func terminalRenderingScansBackThroughZbar() throws {
        for text in ["OW:HELLO", try QRFrames.encode(Array(repeating: 0x5A, count: 300))[0]] {
            let symbol = try QRSymbol(text)
            let drawing = symbol.terminalText()
            let (modules, width) = try Self.rasterize(drawing)
            #expect(width == symbol.size + 2 * QRSymbol.quietZone)
            // Scale each module to 4×4 pixels, as a camera would see a drawn terminal.
            let scale = 4
            let height = modules.count / width
            var pixels = [UInt8](repeating: 255, count: width * scale * height * scale)
            for y in 0..<height {
                for x in 0..<width where modules[y * width + x] {
                    for dy in 0..<scale {
                        for dx in 0..<scale { pixels[(y * scale + dy) * width * scale + x * scale + dx] = 0 }
                    }
                }
            }
            #expect(QRScanner.scan(gray: pixels, width: width * scale, height: height * scale) == [text])
        }
    }

    @Test func terminalRenderingHasQuietZoneAndExplicitColours() throws {
        let symbol = try QRSymbol("OW:HELLO")
        let lines = symbol.terminalText().split(separator: "\n").map(String.init)
        let side = symbol.size + 2 * QRSymbol.quietZone
        #expect(lines.count == (side + 1) / 2)
        for line in lines {
            // Black on white set on every line, reset at its end: readable on any theme.
            #expect(line.hasPrefix(QRSymbol.terminalColours))
            #expect(line.hasSuffix(QRSymbol.terminalReset))
        }
        let (modules, width) = try Self.rasterize(symbol.terminalText())
        #expect(width == side)
        let quiet = QRSymbol.quietZone
        for y in 0..<side {
            for x in 0..<side where x < quiet || y < quiet || x >= side - quiet || y >= side - quiet {
                #expect(!modules[y * width + x], "quiet zone module (\(x), \(y)) is dark")
            }
        }
        // Inside, exactly the symbol's modules.
        for y in 0..<symbol.size {
            for x in 0..<symbol.size { #expect(modules[(y + quiet) * width + x + quiet] == symbol.isDark(x, y)) }
        }
    }

    /// Turns a terminal drawing back into modules (true = dark). Only the colours this renderer
    /// sets are understood: foreground black on background white.
    static func rasterize(_ drawing: String) throws -> (modules: [Bool], width: Int) {
        var rows: [[Bool]] = []
        for line in drawing.split(separator: "\n") {
            var body = Substring(line)
            guard body.hasPrefix(QRSymbol.terminalColours), body.hasSuffix(QRSymbol.terminalReset) else {
                throw RasterError.uncoloured(String(line))
            }
            body = body.dropFirst(QRSymbol.terminalColours.count).dropLast(QRSymbol.terminalReset.count)
            var top: [Bool] = []
            var bottom: [Bool] = []
            for character in body {
                switch character {
                case " ":
                    top.append(false)
                    bottom.append(false)
                case "▀":
                    top.append(true)
                    bottom.append(false)
                case "▄":
                    top.append(false)
                    bottom.append(true)
                case "█":
                    top.append(true)
                    bottom.append(true)
                default: throw RasterError.unexpected(character)
                }
            }
            rows += [top, bottom]
        }
        let width = rows.first?.count ?? 0
        guard rows.allSatisfy({ $0.count == width }) else { throw RasterError.ragged }
        return (rows.flatMap { $0 }, width)
    }

    enum RasterError: Error { case uncoloured(String), unexpected(Character), ragged }
}
#endif
