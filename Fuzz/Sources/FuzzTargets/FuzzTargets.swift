import Foundation
import OfflineNotes

/// The fuzz targets: one per decoder family that reads bytes from outside (docs/reliability.md §1).
///
/// Each target decodes its input, and whatever decodes must re-encode to exactly the input bytes
/// (the protocol allows one encoding per message; for JSON, decoding what was encoded gives the
/// same value back), and must keep the target's invariants. A broken rule is reported with
/// `fail`, which traps: libFuzzer records the input as a crash like any other.
public enum FuzzTargets {
    /// A target: its name (OW_FUZZ_TARGET), what it covers, how it runs one input, and its seeds.
    public struct Target: Sendable {
        public let name: String
        public let covers: String
        let run: @Sendable ([UInt8]) -> Void
        let seeds: @Sendable () throws -> [[UInt8]]
    }

    public static let all: [Target] = [
        NotesTarget.target,
        VerifyTarget.target,
        QRTarget.target,
        NearbyFrameTarget.target,
        NearbySessionTarget.target,
        PassphraseBoxTarget.target,
        APIJSONTarget.target,
        RLPTarget.target,
        EthereumTransactionTarget.target,
        RPCJSONTarget.target,
    ]

    /// The target OW_FUZZ_TARGET names, resolved once.
    static let current: Target = {
        let name = ProcessInfo.processInfo.environment["OW_FUZZ_TARGET"] ?? ""
        guard let target = all.first(where: { $0.name == name }) else {
            fatalError(
                "OW_FUZZ_TARGET=\(name.isEmpty ? "(unset)" : name) is not a target; one of: \(all.map(\.name).joined(separator: " "))"
            )
        }
        return target
    }()

    /// Runs one input through the selected target.
    public static func selected(_ bytes: [UInt8]) {
        current.run(bytes)
    }

    /// Writes the selected target's seed inputs (derived from docs/vectors at run time, so no
    /// binary corpus is committed) into `directory`, one file per seed; returns how many.
    public static func writeSeeds(into directory: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeds = try current.seeds()
        for (index, seed) in seeds.enumerated() {
            let path = (directory as NSString).appendingPathComponent("seed-\(current.name)-\(index)")
            guard FileManager.default.createFile(atPath: path, contents: Data(seed)) else {
                throw SeedError("cannot write \(path)")
            }
        }
        return seeds.count
    }
}

/// A broken round trip or invariant: a finding, so trap with the reason (libFuzzer keeps the input).
func fail(_ target: String, _ message: @autoclosure () -> String) -> Never {
    fatalError("[\(target)] \(message())")
}

struct SeedError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// docs/vectors, read once: OW_FUZZ_VECTORS, or the project's own copy next to this package.
enum Vectors {
    static let directory: String = {
        if let path = ProcessInfo.processInfo.environment["OW_FUZZ_VECTORS"] { return path }
        // Fuzz/Sources/FuzzTargets/FuzzTargets.swift → the project root.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("docs/vectors").path
    }()

    /// The parsed JSON object of `docs/vectors/<name>.json`. A missing or broken vector file stops
    /// the fuzzer at once: every target's fixed inputs come from them.
    static func object(_ name: String) -> [String: Any] {
        let path = (directory as NSString).appendingPathComponent("\(name).json")
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { fatalError("cannot read the vectors at \(path); set OW_FUZZ_VECTORS to docs/vectors") }
        return object
    }

    /// The bytes of a hex string at `path` (keys, then array indices) in `object`.
    static func hex(_ object: [String: Any], _ path: String...) -> [UInt8] {
        var node: Any = object
        for key in path {
            if let index = Int(key), let array = node as? [Any], array.indices.contains(index) {
                node = array[index]
            } else if let dictionary = node as? [String: Any], let next = dictionary[key] {
                node = next
            } else {
                fatalError("vectors: no \(path.joined(separator: "."))")
            }
        }
        guard let text = node as? String, let bytes = decodeHex(text) else {
            fatalError("vectors: \(path.joined(separator: ".")) is not hex")
        }
        return bytes
    }

    // Read on use (only while the fixtures and seeds are built): `[String: Any]` is not Sendable.
    static var messages: [String: Any] { object("messages") }
    static var verification: [String: Any] { object("verification") }
    static var session: [String: Any] { object("session") }
    static var keys: [String: Any] { object("keys") }

    /// Every verification case as (name, request, bundle, now).
    static let cases: [(name: String, request: [UInt8], bundle: [UInt8], now: UInt64)] = {
        guard let cases = verification["cases"] as? [[String: Any]] else { fatalError("vectors: verification.cases") }
        return cases.map { c in
            let now = (c["now"] as? String).flatMap { UInt64($0) } ?? 0
            return (c["name"] as? String ?? "?", hex(c, "request"), hex(c, "bundle"), now)
        }
    }()

    /// Every top-level message in the vectors (each kind, every request and bundle).
    static let allMessages: [[UInt8]] = {
        var out: [[UInt8]] = []
        for key in [
            "issued_note", "transfer_1hop", "chain_1hop", "chain_3hop", "payment_request", "payment_bundle", "receipt", "keyset",
            "limits",
        ] {
            out.append(hex(messages, key, "hex"))
        }
        for c in cases { out += [c.request, c.bundle] }
        out += [hex(session, "request"), hex(session, "bundle"), hex(session, "receipt")]
        return unique(out)
    }()
}

/// Hex as the vectors write it (the protocol's own reader).
func decodeHex(_ text: String) -> [UInt8]? {
    OfflineNotes.Hex.decode(text)
}

func unique(_ inputs: [[UInt8]]) -> [[UInt8]] {
    var seen = Set<[UInt8]>()
    return inputs.filter { seen.insert($0).inserted }
}

/// Input framing shared by targets that need several byte strings: each is a 2-byte big-endian
/// length and then its bytes; whatever is left after the last whole piece is the final piece.
enum Pieces {
    static func split(_ bytes: [UInt8], count: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while out.count < count - 1, i + 2 <= bytes.count {
            let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            i += 2
            let end = min(bytes.count, i + length)
            out.append(Array(bytes[i..<end]))
            i = end
        }
        out.append(i < bytes.count ? Array(bytes[i...]) : [])
        return out
    }

    static func join(_ pieces: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            if index < pieces.count - 1 { out += [UInt8(piece.count >> 8), UInt8(piece.count & 0xFF)] }
            out += piece
        }
        return out
    }
}
