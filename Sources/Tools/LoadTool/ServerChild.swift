// The wallet-server a soak drives, as a child process.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The wallet-server under test, as a child process on a fixed port once the first start has
/// picked one.
final class ServerChild: @unchecked Sendable {
    let binary: String
    let arguments: [String]
    let work: URL
    private(set) var port = 0
    private var process: Process?
    /// The running server's process id.
    var pid: Int32? { process?.processIdentifier }
    private var starts = 0

    init(binary: String, arguments: [String], work: URL) {
        self.binary = binary
        self.arguments = arguments
        self.work = work
    }

    /// Starts the server and waits for its port file (written once it listens).
    func start() async throws {
        starts += 1
        let portFile = work.appendingPathComponent("port")
        try? FileManager.default.removeItem(at: portFile)
        let log = work.appendingPathComponent("server-\(starts).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["serve"] + arguments + ["--port", String(port), "--port-file", portFile.path]
        let handle = try FileHandle(forWritingTo: log)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        process = p
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            if let text = try? String(contentsOf: portFile, encoding: .utf8),
                let bound = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                port = bound
                return
            }
            guard p.isRunning else { throw SoakFailure("wallet-server ended before listening; see \(log.path)") }
            guard ContinuousClock.now < deadline else {
                throw SoakFailure("wallet-server not listening after 120 s; see \(log.path)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// SIGKILL (no chance to finish anything), then waits for the process to end.
    func kill() {
        guard let p = process, p.isRunning else { return }
        Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    /// SIGTERM, then waits for the process to end. A server that has not ended 20 s later is
    /// killed and the run fails: a server that does not stop when asked is a defect, and
    /// waiting for it would hang the run.
    func stop() throws {
        guard let p = process, p.isRunning else { return }
        defer { process = nil }
        p.terminate()
        let deadline = ContinuousClock.now + .seconds(20)
        while p.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard p.isRunning else { return }
        Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        throw SoakFailure("wallet-server (pid \(p.processIdentifier)) did not stop within 20 s of SIGTERM; it was killed")
    }
}
