import Foundation

/// A program run to completion: its exit status (128 + N when killed by signal N, as a shell
/// reports it) and what it wrote.
public struct ProgramRun: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// Runs `path ARGS` in `directory` with stdin closed. Output goes through files there (removed
    /// afterwards), so a full pipe never blocks the program and concurrent runs never mix.
    public static func run(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String
    ) throws -> ProgramRun {
        let id = UUID().uuidString
        let out = directory + "/run-\(id).out", err = directory + "/run-\(id).err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        // Not Foundation's `Process`: see `Spawn`.
        let status = Spawn.wait(
            try Spawn.start(
                path, arguments, environment: environment, directory: directory, standardOutput: out, standardError: err))
        return ProgramRun(
            status: status, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
