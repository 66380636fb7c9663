import Foundation

/// The protocol's test vectors (`docs/vectors`, docs/vectors/README.md), read by the tests that
/// check them: one JSON object per file, byte strings as lower-case hex.
public enum VectorFiles {
    /// `docs/vectors` of this checkout.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/vectors")

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The top-level object of `docs/vectors/<name>.json`.
    public static func load(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("\(name).json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(description: "\(name).json is not a JSON object")
        }
        return object
    }

    /// The bytes of a hex string field (nil or not hex: an error naming it).
    public static func bytes(_ value: Any?) throws -> [UInt8] {
        guard let text = value as? String, text.count.isMultiple(of: 2) else {
            throw Failure(description: "\(String(describing: value)) is not a hex string")
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var i = text.startIndex
        while i < text.endIndex {
            let j = text.index(i, offsetBy: 2)
            guard let byte = UInt8(text[i..<j], radix: 16) else {
                throw Failure(description: "'\(text[i..<j])' is not a hex byte")
            }
            out.append(byte)
            i = j
        }
        return out
    }
}
