#if os(Linux)
import Foundation
import QRPayload
import TestSupport
import Testing

@testable import WalletCLI

/// What `pay`, `receive` and `confirm` accept as QR input: files, the set of files written for
/// several frames given by its base name, standard input, and text files with a byte order mark;
/// a missing file is named as missing.
@Suite("QR input", .serialized)
struct CodeInputTests {
    /// A message long enough for three frames.
    private let message = (0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    @Test func aSetOfNumberedFilesIsReadByItsBaseNameInOrder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let frames = try QRFrames.encode(message)
        #expect(frames.count == 3)
        for (i, frame) in frames.enumerated() {
            try Data((frame + "\n").utf8).write(to: URL(fileURLWithPath: cli.path("pay-\(i + 1).txt")))
        }
        var notes: [String] = []
        #expect(try Codes.read([cli.path("pay.txt")]) { notes.append($0) } == message)
        #expect(notes.count == 1)
        #expect(notes.first?.contains("pay-1.txt, \(cli.path("pay-2.txt")), \(cli.path("pay-3.txt"))") == true, "\(notes)")
        // A gap ends the set: the frames after it are not guessed at.
        try FileManager.default.removeItem(atPath: cli.path("pay-2.txt"))
        #expect(throws: CLIError.self) { try Codes.read([cli.path("pay.txt")]) { _ in } }
    }

    @Test func aByteOrderMarkBeforeTheFirstFrameIsIgnored() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let frames = try QRFrames.encode(message)
        let file = cli.path("frames.txt")
        try Data(([0xEF, 0xBB, 0xBF] as [UInt8]) + Array(frames.joined(separator: "\r\n").utf8)).write(
            to: URL(fileURLWithPath: file))
        #expect(try Codes.read([file]) == message)
    }

    @Test func aMissingFileIsNamedAsMissing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let missing = cli.path("nope.png")
        do {
            _ = try Codes.read([missing]) { _ in }
            Issue.record("a missing file was read")
        } catch let error as CLIError {
            #expect(error.code == "no_such_file")
            #expect(error.exit == .input)
            #expect(error.description.hasPrefix("No such file: \(missing)."))
        }
    }

    /// The README's flow with PNG files, when the payment's codes were written as a numbered
    /// set; the receipt read from standard input; missing files for each command.
    @Test func commandsReadSetsStandardInputAndNameMissingFiles() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let (payer, payee) = try cli.payerAndPayee(server)

        for command in ["pay", "receive", "confirm"] {
            let missing = cli.path("missing-\(command).png")
            let result = try cli.run([command, "--json", "--wallet", command == "receive" ? payee : payer, missing])
            #expect(result.status == 9, "\(command): \(result.status) \(result.errorMessage)")
            #expect(result.errorCode == "no_such_file", "\(command): \(result.errorMessage)")
            #expect(result.errorMessage.hasPrefix("No such file: \(missing)."), "\(command)")
        }

        let request = try cli.run(["request", "--json", "--wallet", payee, "2.00"])
        let requestFrames = try #require(request.json["request"] as? [String])
        let paid = try cli.run(["pay", "--json", "--wallet", payer, "--via", "qr", "--png", cli.path("pay.png")] + requestFrames)
        #expect(paid.status == 0, "\(paid.errorMessage)")
        // The set as `show` names several frames: pay-1.png …
        try FileManager.default.moveItem(atPath: cli.path("pay.png"), toPath: cli.path("pay-1.png"))
        let received = try cli.run(["receive", "--json", "--wallet", payee, cli.path("pay.png")])
        #expect(received.status == 0, "\(received.errorMessage)")
        #expect(received.stderr.contains("reading the set written under that name: \(cli.path("pay-1.png"))"))

        let receipt = try #require(received.json["receipt"] as? [String])
        let receiptFile = cli.path("receipt.txt")
        try Data(receipt.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: receiptFile))
        let confirmed = try ProgramRun.run(
            "/bin/sh", ["-c", "exec \"$0\" confirm --json --wallet \"$1\" - < \"$2\"", CLI.wallet, payer, receiptFile],
            environment: cli.environment, in: cli.scratch)
        #expect(confirmed.status == 0, "\(confirmed.stdout) \(confirmed.stderr)")
        #expect(confirmed.stdout.contains("\"status\":\"completed\""), "\(confirmed.stdout)")
    }
}
#endif
