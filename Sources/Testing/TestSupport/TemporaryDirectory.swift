import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it
/// when the owner lets go of it (deinit) — tests leave nothing behind in /tmp.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `<tmp>/<prefix>-<uuid>`.
    public init(_ prefix: String) throws {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path/name`.
    public func path(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
