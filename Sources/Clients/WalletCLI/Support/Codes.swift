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
    /// PNG images (read with zbar), or `-` / `/dev/stdin` (frame text on standard input). Frames
    /// may come in any order and from several files. A file name that does not exist names the
    /// set `show` wrote for several frames (`pay.png` for `pay-1.png`, `pay-2.png` …) when that
    /// set is there; otherwise it is refused as a missing file, never taken for frame text.
    static func read(
        _ inputs: [String], note: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) throws -> [UInt8] {
        var assembler = QRFrames.Assembler()
        var texts: [String] = []
        for input in inputs {
            if input == "-" || input == "/dev/stdin" {
                texts += frameLines(FileHandle.standardInput.readDataToEndOfFile())
            } else if FileManager.default.fileExists(atPath: input) {
                texts += try readFile(input)
            } else if input.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(QRFrames.prefix) {
                texts += input.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            } else {
                let set = numberedSet(input)
                guard !set.isEmpty else {
                    throw CLIError(
                        "no_such_file",
                        "No such file: \(input). Give the path of a QR image or text file, or the frame text itself (it starts with OW:).",
                        exit: .input)
                }
                note("\(input) is not there; reading the set written under that name: \(set.joined(separator: ", "))")
                for file in set { texts += try readFile(file) }
            }
        }
        guard !texts.isEmpty else {
            throw CLIError("no_code", "No QR frame found in \(inputs.joined(separator: ", ")).", exit: .input)
        }
        for text in texts {
            if let message = try assembler.add(text) { return message }
        }
        let (have, expected) = assembler.progress
        throw CLIError(
            "incomplete_code", "Only \(have) of \(expected ?? 0) QR frames were given. Scan or pass the missing ones too.",
            exit: .input)
    }

    /// The frames in one file: a PNG's symbols, or a text file's frame lines.
    static func readFile(_ path: String) throws -> [String] {
        if path.lowercased().hasSuffix(".png") {
            #if canImport(QRImage)
            return try QRScanner.scan(pngAt: path)
            #else
            throw CLIError("unsupported", "Reading PNG files needs zbar (Linux build).", exit: .input)
            #endif
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("unreadable_file", "Cannot read \(path).", exit: .input)
        }
        return frameLines(data)
    }

    /// One frame per line (Base45 uses spaces, so lines are never split further); a UTF-8 byte
    /// order mark before the first line and carriage returns are dropped, lines that are not
    /// frames ignored.
    static func frameLines(_ data: Data) -> [String] {
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .init(charactersIn: "\r")) }.filter { $0.hasPrefix(QRFrames.prefix) }
    }

    /// The files `show` writes for several frames under `path` (`name-1.ext`, `name-2.ext` …),
    /// in order, as far as they go without a gap; empty when there is no `name-1.ext`.
    static func numberedSet(_ path: String) -> [String] {
        var files: [String] = []
        while FileManager.default.fileExists(atPath: numbered(path, files.count + 1)) {
            files.append(numbered(path, files.count + 1))
        }
        return files
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
            var drawn = frames
            if let size = TerminalSize.current() {
                switch TerminalFit.fit(messageBytes: message.count, in: size) {
                case .fits(_, let chunkSize, _):
                    drawn = try QRFrames.encode(message, chunkSize: chunkSize)
                case .tooSmall(let needed):
                    output.note(
                        "This terminal is \(size.columns)×\(size.lines) characters; these QR codes need at least \(needed.columns)×\(needed.lines). Enlarge the window, or write them to a file with --png."
                    )
                }
            }
            let pages = try terminalPages(drawn, title: title)
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
    /// Lines of a page besides the symbol: its heading, and the prompt when shown one at a time.
    static let pageExtraLines = 2

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

/// A terminal's size in character cells.
struct TerminalSize: Equatable, Sendable {
    var columns: Int
    var lines: Int

    /// `COLUMNS` and `LINES` when both are set (the user's or a script's say), else the size of
    /// the terminal on standard output; nil when neither is known.
    static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalSize? {
        if let columns = environment["COLUMNS"].flatMap(Int.init), let lines = environment["LINES"].flatMap(Int.init),
            columns > 0, lines > 0
        {
            return TerminalSize(columns: columns, lines: lines)
        }
        var size = winsize()
        let asked = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        guard asked == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return TerminalSize(columns: Int(size.ws_col), lines: Int(size.ws_row))
    }
}

#if canImport(QRImage)
/// How a message's QR frames are fitted to a terminal: the largest QR version whose drawing
/// (quiet zone included, two module rows per line, plus a heading and a prompt line) fits, and
/// frames cut small enough for it. More frames, each small enough to scan off the screen whole.
enum TerminalFit: Equatable {
    /// Frames of at most `chunkSize` bytes, drawn at QR version `version` or below, `frames` of them.
    case fits(version: Int, chunkSize: Int, frames: Int)
    /// Not even the smallest usable symbol fits: the size that would.
    case tooSmall(needed: TerminalSize)

    /// The protocol's chunk size (docs/protocol.md §9): used whenever its symbols fit.
    static let defaultChunkSize = 600

    static func fit(messageBytes: Int, in size: TerminalSize) -> TerminalFit {
        let fitting = (1...40).filter { fits(version: $0, in: size) }
        // The smallest version that carries the message in at most 255 frames.
        guard let smallest = (1...40).first(where: { frameCount(messageBytes, chunkSize: chunkSize(forVersion: $0)) != nil })
        else {
            return .tooSmall(needed: needed(forVersion: 40))
        }
        guard let version = fitting.last, version >= smallest else { return .tooSmall(needed: needed(forVersion: smallest)) }
        let chunk = min(defaultChunkSize, chunkSize(forVersion: version))
        let frames = frameCount(messageBytes, chunkSize: chunk) ?? QRFrames.maxFrames
        return .fits(version: version, chunkSize: chunk, frames: frames)
    }

    /// Whether a symbol of `version` with its heading and prompt fits `size`.
    static func fits(version: Int, in size: TerminalSize) -> Bool {
        let need = needed(forVersion: version)
        return need.columns <= size.columns && need.lines <= size.lines
    }

    /// The terminal size a symbol of `version` needs, heading and prompt included.
    static func needed(forVersion version: Int) -> TerminalSize {
        let side = 17 + 4 * version + 2 * QRSymbol.quietZone
        return TerminalSize(columns: side, lines: (side + 1) / 2 + Codes.pageExtraLines)
    }

    /// The most message bytes one frame carries at `version` or below (0 when not even the
    /// frame's header fits). Measured with the encoder on frames of the densest Base45 text
    /// (letters only: no digit runs to pack tighter), so real frames never come out larger.
    static func chunkSize(forVersion version: Int) -> Int {
        func fitsAt(_ bytes: Int) -> Bool {
            let text = QRFrames.prefix + Base45.encode([UInt8](repeating: 0xFF, count: 7 + bytes))  // the 7-byte frame header
            return ((try? QRSymbol(text))?.version ?? 41) <= version
        }
        guard fitsAt(1) else { return 0 }
        var low = 1, high = defaultChunkSize * 4
        while low < high {
            let middle = (low + high + 1) / 2
            if fitsAt(middle) { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Frames a message of `bytes` needs in chunks of `chunkSize`; nil when over 255 or no chunk fits.
    static func frameCount(_ bytes: Int, chunkSize: Int?) -> Int? {
        guard let chunkSize, chunkSize > 0 else { return nil }
        let count = max(1, (bytes + chunkSize - 1) / chunkSize)
        return count <= QRFrames.maxFrames ? count : nil
    }
}
#endif
