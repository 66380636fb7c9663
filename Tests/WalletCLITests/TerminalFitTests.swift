#if os(Linux)
import Foundation
import QRPayload
import QRImage
import TestSupport
import Testing

@testable import WalletCLI

/// QR codes drawn in a terminal fit it: smaller symbols and more frames on a small terminal,
/// the protocol's frames when they fit, and the size needed when nothing fits.
@Suite("QR codes fitted to the terminal", .serialized)
struct TerminalFitTests {
    @Test func anEightyByTwentyFourTerminalGetsVersionFourFramesThatFit() throws {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<1500).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let fit = TerminalFit.fit(messageBytes: message.count, in: TerminalSize(columns: 80, lines: 24))
        guard case .fits(let version, let chunkSize, let frames) = fit else {
            Issue.record("\(fit)")
            return
        }
        // Version 4 is 33 modules + the quiet zone: 41 columns, 21 lines, plus heading and prompt.
        #expect(version == 4)
        let encoded = try QRFrames.encode(message, chunkSize: chunkSize)
        #expect(encoded.count == frames)
        #expect(frames > 1 && frames <= 255)
        for frame in encoded {
            let symbol = try QRSymbol(frame)
            #expect(symbol.version <= 4)
            let lines = symbol.terminalText().split(separator: "\n")
            #expect(lines.count + Codes.pageExtraLines <= 24)
        }
        // The smaller chunks still read back as the message.
        var assembler = QRFrames.Assembler()
        var read: [UInt8]?
        for frame in encoded.reversed() { read = try assembler.add(frame) ?? read }
        #expect(read == message)
    }

    @Test func aLargeTerminalKeepsTheProtocolsFrames() {
        #expect(
            TerminalFit.fit(messageBytes: 1500, in: TerminalSize(columns: 200, lines: 100))
                == .fits(version: 40, chunkSize: 600, frames: 3))
    }

    @Test func aTerminalTooSmallForAnySymbolSaysTheSizeNeeded() {
        #expect(
            TerminalFit.fit(messageBytes: 300, in: TerminalSize(columns: 20, lines: 10))
                == .tooSmall(needed: TerminalSize(columns: 29, lines: 17)))
        // Wide but short: version 1 needs 17 lines with its heading and prompt.
        #expect(
            TerminalFit.fit(messageBytes: 300, in: TerminalSize(columns: 300, lines: 16))
                == .tooSmall(needed: TerminalSize(columns: 29, lines: 17)))
    }

    @Test func columnsAndLinesComeFromTheEnvironmentFirst() {
        #expect(TerminalSize.current(environment: ["COLUMNS": "80", "LINES": "24"]) == TerminalSize(columns: 80, lines: 24))
    }

    /// Run in a pseudo-terminal (`script`) with COLUMNS=80 LINES=24: every frame drawn fits.
    @Test func framesDrawnInAnEightyByTwentyFourTerminalFit() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let payee = try cli.registeredWallet("payee", server: server)
        let command = [CLI.wallet, "receive", "--wallet", payee, "--listen", "127.0.0.1:0", "1.00", "--timeout", "1"]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        var environment = cli.environment
        environment["COLUMNS"] = "80"
        environment["LINES"] = "24"
        let run = try ProgramRun.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment, in: cli.scratch)
        // A terminal ends lines with CR LF, which Swift reads as one character.
        let lines = run.stdout.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        ).map { String($0) }
        let headings = lines.indices.filter { lines[$0].contains("Nearby payment request — frame ") }
        #expect(headings.count > 1, "\(run.stdout)")
        for start in headings {
            let symbol = lines[(start + 1)...].prefix { $0.hasPrefix(QRSymbol.terminalColours) }
            #expect(!symbol.isEmpty)
            #expect(symbol.count + Codes.pageExtraLines <= 24, "\(lines[start]): \(symbol.count) lines")
            for line in symbol {
                let visible = line.replacingOccurrences(of: QRSymbol.terminalColours, with: "")
                    .replacingOccurrences(of: QRSymbol.terminalReset, with: "")
                #expect(visible.count <= 80, "\(visible.count) columns")
            }
        }
    }
}
#endif
