import Foundation

/// The executables `swift build --build-tests` put next to the test bundle (`wallet`,
/// `wallet-server`, …), for tests that run the real programs.
public enum BuiltProducts {
    /// The directory holding the built products: the test bundle's directory or one above it
    /// (the bundle may be a directory, `X.xctest/…`).
    public static let directory: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("wallet-server").path) {
                return directory.path
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// The path of the built executable `name`.
    public static func path(_ name: String) throws -> String {
        guard let directory, FileManager.default.isExecutableFile(atPath: directory + "/" + name) else {
            throw TestSupportError("No built \(name) next to the tests: run swift build --build-tests first.")
        }
        return directory + "/" + name
    }
}

/// A test harness could not set something up; the message says what and what to do.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
