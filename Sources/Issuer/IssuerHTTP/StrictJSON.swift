/// A strict, single-pass JSON checker run on request bodies before the generated decoder.
///
/// Foundation's `JSONDecoder` silently keeps one of two equal keys, so
/// `{"amount":1,"amount":100000000}` would decode as whichever it happens to keep while a proxy,
/// a log or an auditor reading the same bytes may see the other. The server refuses such bodies
/// instead. Keys are compared the way the decoder compares them: after unescaping, as Swift
/// strings (so `"a"` and `"\u0061"` are the same key, and so are canonically equivalent forms).
///
/// The scan is linear in the body (one hash-set insert per key). Open containers live on an
/// explicit stack and nesting deeper than `maxDepth` is refused, so neither memory nor call
/// depth grows with what a client sends (a container's first element is read by a nested call,
/// at most `maxDepth` deep).
public enum StrictJSON {
    /// Why a body was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// The same key twice in one object; `path` locates the object (e.g. `$.chains[0]`).
        case duplicateKey(String, path: String)
        /// Objects and arrays nested deeper than the limit.
        case tooDeep(limit: Int)
        /// Not JSON (RFC 8259); `offset` is the byte where reading stopped.
        case invalid(String, offset: Int)
    }

    /// Deeper than any request of the API (which nests three levels) by a wide margin.
    public static let defaultMaxDepth = 32

    /// Checks that `bytes` is one JSON value with no object holding a key twice.
    public static func check(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(Failure) {
        var scanner = Scanner(bytes: Array(bytes), maxDepth: maxDepth)
        try scanner.document()
    }

    struct Scanner {
        let bytes: [UInt8]
        let maxDepth: Int
        var i = 0

        /// One open container: an object's keys so far, or an array's element count (for paths).
        enum Frame {
            case object(keys: Set<String>, current: String)
            case array(index: Int)

            var closer: UInt8 {
                switch self {
                case .object: UInt8(ascii: "}")
                case .array: UInt8(ascii: "]")
                }
            }
        }

        var stack: [Frame] = []

        init(bytes: [UInt8], maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        mutating func document() throws(Failure) {
            skipSpace()
            try value()
            skipSpace()
            guard i == bytes.count else { throw fail("trailing data after the JSON value") }
        }

        /// Reads one value; the members after a container's first are read by this loop.
        mutating func value() throws(Failure) {
            try scalarOrOpen()
            while !stack.isEmpty {
                skipSpace()
                if try closes() { continue }
                guard bytes[i] == UInt8(ascii: ",") else {
                    throw fail("expected ',' or '\(Character(Unicode.Scalar(stack[stack.count - 1].closer)))'")
                }
                i += 1
                switch stack[stack.count - 1] {
                case .object:
                    try memberStart()
                case .array(let index):
                    stack[stack.count - 1] = .array(index: index + 1)
                    skipSpace()
                    try scalarOrOpen()
                }
            }
        }

        /// Consumes the innermost container's closing bracket, if it is next.
        mutating func closes() throws(Failure) -> Bool {
            guard i < bytes.count else { throw fail("unexpected end of input") }
            guard bytes[i] == stack[stack.count - 1].closer else { return false }
            i += 1
            stack.removeLast()
            return true
        }

        /// A scalar value, or the opening of a container (pushed on the stack, with its first
        /// member or element read if it is not empty).
        mutating func scalarOrOpen() throws(Failure) {
            guard i < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                try push(.object(keys: [], current: ""))
                skipSpace()
                if try !closes() { try memberStart() }
            case UInt8(ascii: "["):
                try push(.array(index: 0))
                skipSpace()
                if try !closes() { try scalarOrOpen() }
            case UInt8(ascii: "\""): _ = try string(keep: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: try number()
            }
        }

        mutating func push(_ frame: Frame) throws(Failure) {
            guard stack.count < maxDepth else { throw .tooDeep(limit: maxDepth) }
            i += 1
            stack.append(frame)
        }

        /// `"key": ` then the start of its value, recording the key in the innermost object.
        mutating func memberStart() throws(Failure) {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string(keep: true)
            guard case .object(var keys, _) = stack[stack.count - 1] else { throw fail("internal: key outside an object") }
            // Release the set from the stack while inserting, so it is not copied.
            stack[stack.count - 1] = .array(index: 0)
            guard keys.insert(key).inserted else { throw .duplicateKey(key, path: path()) }
            stack[stack.count - 1] = .object(keys: keys, current: key)
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipSpace()
            try scalarOrOpen()
        }

        /// A string starting at `"`; returns its unescaped text when `keep` (keys), else "".
        mutating func string(keep: Bool) throws(Failure) -> String {
            i += 1
            var out: [UInt8] = []
            var start = i
            while true {
                guard i < bytes.count else { throw fail("unterminated string") }
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    if keep { out.append(contentsOf: bytes[start..<i]) }
                    i += 1
                    break
                }
                if c < 0x20 { throw fail("control character in a string") }
                if c != UInt8(ascii: "\\") {
                    i += 1
                    continue
                }
                if keep { out.append(contentsOf: bytes[start..<i]) }
                i += 1
                guard i < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate escape")
                    }
                    if keep, let s = Unicode.Scalar(scalar) { UTF8.encode(s) { out.append($0) } }
                default: throw fail("invalid escape")
                }
                start = i
            }
            guard keep else { return "" }
            guard let text = String(validating: out, as: UTF8.self) else { throw fail("key is not valid UTF-8") }
            return text
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let d: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
                default: throw fail("bad hex digit in \\u escape")
                }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard i + text.count <= bytes.count, bytes[i..<i + text.count].elementsEqual(text) else {
                throw fail("invalid literal")
            }
            i += text.count
        }

        /// RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        mutating func number() throws(Failure) {
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid value") }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else { digits() }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
                digits()
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
                digits()
            }
        }

        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

        mutating func digits() {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }

        mutating func skipSpace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        func fail(_ reason: String) -> Failure { .invalid(reason, offset: i) }

        /// Where the innermost object sits, as `$.a.b[2]` (for the problem's detail).
        func path() -> String {
            var out = "$"
            for frame in stack.dropLast() {
                switch frame {
                case .object(_, let current): out += "." + current
                case .array(let index): out += "[\(index)]"
                }
            }
            return out
        }
    }
}
