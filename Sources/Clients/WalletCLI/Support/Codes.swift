import Foundation
import QRPayload
import WalletCore

#if canImport(QRImage)
import QRImage
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Messages in and out of the command line as QR codes: terminal drawings, PNG files and the
/// frames' text (docs/protocol.md §9).
enum Codes {
    /// Reads one message from arguments that are frame text (`OW:…`), text files holding frames,
    /// or PNG images (read with zbar). Frames may come in any order and from several files.
    static func read(_ inputs: [String]) throws -> [UInt8] {
        var assembler = QRFrames.Assembler()
        var texts: [String] = []
        for input in inputs {
            if FileManager.default.fileExists(atPath: input) {
                if input.lowercased().hasSuffix(".png") {
                    #if canImport(QRImage)
                    texts += try QRScanner.scan(pngAt: input)
                    #else
                    throw CLIError("unsupported", "Reading PNG files needs zbar (Linux build).", exit: .input)
                    #endif
                } else {
                    guard let data = FileManager.default.contents(atPath: input) else {
                        throw CLIError("unreadable_file", "Cannot read \(input).", exit: .input)
                    }
                    // One frame per line; Base45 uses spaces, so lines are never split further.
                    texts += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                        .map { $0.trimmingCharacters(in: .init(charactersIn: "\r")) }.filter { $0.hasPrefix(QRFrames.prefix) }
                }
            } else {
                texts += input.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        guard !texts.isEmpty else { throw CLIError("no_code", "No QR frame found in \(inputs.joined(separator: ", ")).", exit: .input) }
        for text in texts {
            if let message = try assembler.add(text) { return message }
        }
        let (have, expected) = assembler.progress
        throw CLIError(
            "incomplete_code", "Only \(have) of \(expected ?? 0) QR frames were given. Scan or pass the missing ones too.", exit: .input)
    }

    /// Shows `message` as QR frames: drawn in the terminal (when it is one), written as PNG
    /// files when `png` is given (`name.png`, or `name-1.png` … for several frames), and returned
    /// as text. Returns the frames and the files written.
    ///
    /// Several frames are shown one at a time (Enter for the next, cycling, `q` to stop) when
    /// `interactive` and both ends are a terminal: a scanner pointed at a screen full of codes
    /// picks any of them. Otherwise each frame is printed under its "frame k/n" heading.
    static func show(
        _ message: [UInt8], png: String?, output: Output, title: String, interactive: Bool = true
    ) throws -> (frames: [String], files: [String]) {
        let frames = try QRFrames.encode(message)
        var files: [String] = []
        if let png {
            #if canImport(QRImage)
            for (i, frame) in frames.enumerated() {
                let path = frames.count == 1 ? png : numbered(png, i + 1)
                try QRSymbol(frame).writePNG(to: path)
                files.append(path)
            }
            #else
            throw CLIError("unsupported", "Writing PNG files needs libqrencode (Linux build).", exit: .input)
            #endif
        }
        if !output.json, isatty(STDOUT_FILENO) == 1 {
            #if canImport(QRImage)
            let pages = try terminalPages(frames, title: title)
            if pages.count > 1, interactive, isatty(STDIN_FILENO) == 1 {
                showOneAtATime(pages)
            } else {
                print(pages.joined(separator: "\n"))
            }
            #endif
        }
        return (frames, files)
    }

    #if canImport(QRImage)
    /// Each frame drawn for the terminal under its heading ("Payment — frame 2/3, QR version 9").
    static func terminalPages(_ frames: [String], title: String) throws -> [String] {
        try frames.enumerated().map { i, frame in
            let symbol = try QRSymbol(frame)
            return "\(title) — frame \(i + 1)/\(frames.count), QR version \(symbol.version)\n" + symbol.terminalText()
        }
    }
    #endif

    /// Draws one page, waits for Enter, erases it and draws the next (after the last, the
    /// first again) until `q` or end of input.
    static func showOneAtATime(_ pages: [String]) {
        var index = 0
        while true {
            let page = pages[index]
            print(page, terminator: "")
            print("Enter: next frame · q, Enter: done (the other side can scan the frames in any order) ", terminator: "")
            fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
            guard let answer = readLine(), answer.trimmingCharacters(in: .whitespaces).lowercased() != "q" else {
                print()
                return
            }
            // Up over the page and the prompt line, then erase to the end of the screen.
            let lines = page.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } + 1
            print("\u{1B}[\(lines)A\u{1B}[J", terminator: "")
            index = (index + 1) % pages.count
        }
    }

    static func numbered(_ path: String, _ index: Int) -> String {
        let ns = path as NSString
        let ext = ns.pathExtension
        let base = ext.isEmpty ? path : ns.deletingPathExtension
        return ext.isEmpty ? "\(base)-\(index)" : "\(base)-\(index).\(ext)"
    }
}

/// Reads a secret from an environment variable, or asks for it without echo on a terminal.
func secret(env name: String, prompt: String) throws -> String {
    if let value = ProcessInfo.processInfo.environment[name], !value.isEmpty { return value }
    guard isatty(STDIN_FILENO) == 1, let raw = getpass(prompt) else {
        throw CLIError("secret_required", "Set \(name) (no terminal to ask on).", exit: .usage)
    }
    return String(cString: raw)
}
