// Writes the protocol test vectors (docs/vectors/*.json) from fixed keys.
// Usage: swift run wallet-vectors [output-directory [file …]]   (default: docs/vectors, every file;
// e.g. `wallet-vectors /tmp/vectors session` writes session.json only)
// ECDSA signatures are randomized, so a rerun changes signature bytes but never validity;
// the committed files are the reference, and the tests check every one. Published cases never
// change: into a directory that already holds a file, only the cases it lacks (by name) are
// appended (Splice.swift); a file without cases there is left as it is. A fresh directory gets
// every file whole (docs/vectors/README.md, "Regenerating").
//
// Fixtures.swift holds the fixed keys and builders, SharedChains.swift the chains several files
// use; each file's cases come from one function, in the file named after it (Messages.swift for
// keys.json and messages.json, Verification.swift and VerificationSpecPoints.swift,
// Decoding.swift, FraudProofs.swift, QRFrames.swift, LinkFrames.swift, LinkStreams.swift,
// Session.swift).
import Foundation

let outDir = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "docs/vectors"
let only = CommandLine.arguments.count > 2 ? Set(CommandLine.arguments[2...]) : nil
let fixtures = try Fixtures()
let shared = try SharedChains(fixtures)
let verification = try fixtures.verificationVectors(shared)
let files: [(name: String, object: [String: Any])] = [
    ("keys", fixtures.keysVectors()), ("messages", try fixtures.messagesVectors(shared)), ("verification", verification),
    ("session", try fixtures.sessionVectors(shared)), ("decoding", try fixtures.decodingVectors(shared)),
    ("fraud-proofs", try fixtures.fraudProofVectors(shared)), ("qr-frames", try qrFrameVectors()),
    ("link-frames", linkFrameVectors()), ("link-streams", linkStreamVectors()),
]

try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
for (name, object) in files where only?.contains(name) ?? true {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    let path = "\(outDir)/\(name).json"
    guard let committed = FileManager.default.contents(atPath: path) else {
        try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
        continue
    }
    let (text, added) = try appendingNewCases(
        to: String(decoding: committed, as: UTF8.self), from: String(decoding: data, as: UTF8.self),
        arrays: ["cases", "write", "read", "send"])
    guard !added.isEmpty else {
        print("kept \(path): no new case")
        continue
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    print("appended to \(path): \(added.joined(separator: ", "))")
}
let verificationCount = (verification["cases"] as? [Any])?.count ?? 0
print("\(verificationCount) verification cases; 1-hop bundle is \(shared.oneHopBundle.encoded.count) bytes")
