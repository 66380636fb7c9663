import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `wallet-server serve` child process on a port the system picked: it runs with
/// `--port 0 --port-file`, and is ready once the port file appears (the server writes it after
/// binding). Waits on that event or on the process's exit, never on a fixed sleep; its
/// standard error goes to a file, shown when it fails to start.
public final class ServerProcess: Sendable {
    /// How long a start may take before the test gives up: a liveness bound for a loaded
    /// machine (a cold PostgreSQL migration can take many seconds), not a speed check.
    public static let startLimit: Duration = .seconds(180)

    public let pid: Int32
    /// Its status once it has ended and been reaped (as `Spawn.wait` reports it).
    private let exit = Mutex<Int32?>(nil)
    private let bound = Mutex<Int?>(nil)
    private let portFile: String
    private let errorLog: String

    /// Starts `wallet-server serve ARGUMENTS --port 0 --port-file DIRECTORY/…` and waits until
    /// it listens. Throws with its standard error if it exits first.
    public static func start(arguments: [String], directory: String, executable: String? = nil) async throws -> ServerProcess {
        let server = try ServerProcess(launching: arguments, directory: directory, executable: executable)
        let deadline = ContinuousClock.now + startLimit
        while try !server.listening(before: deadline) { try await Task.sleep(for: .milliseconds(20)) }
        return server
    }

    /// `start` for synchronous tests (blocks the calling thread while the server starts).
    public static func startBlocking(arguments: [String], directory: String, executable: String? = nil) throws -> ServerProcess {
        let server = try ServerProcess(launching: arguments, directory: directory, executable: executable)
        let deadline = ContinuousClock.now + startLimit
        while try !server.listening(before: deadline) { Thread.sleep(forTimeInterval: 0.02) }
        return server
    }

    private init(launching arguments: [String], directory: String, executable: String?) throws {
        let binary = try executable ?? BuiltProducts.path("wallet-server")
        let tag = UUID().uuidString.prefix(8)
        portFile = directory + "/server-\(tag).port"
        errorLog = directory + "/server-\(tag).stderr"
        _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
        // Not Foundation's `Process`: see `Spawn`.
        pid = try Spawn.start(binary, ["serve"] + arguments + ["--port", "0", "--port-file", portFile], standardError: errorLog)
    }

    /// Its status if it has ended (reaping it), nil while it runs.
    private var ended: Int32? {
        exit.withLock { status in
            if status == nil { status = Spawn.poll(pid) }
            return status
        }
    }

    /// True once the port file names a port; throws if the process ended first or the
    /// deadline passed (then the process is killed).
    private func listening(before deadline: ContinuousClock.Instant) throws -> Bool {
        if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
            let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            bound.withLock { $0 = port }
            return true
        }
        if let status = ended {
            throw TestSupportError("wallet-server exited before listening (status \(status)): \(standardError)")
        }
        if ContinuousClock.now > deadline {
            kill()
            throw TestSupportError("wallet-server did not listen within \(Self.startLimit): \(standardError)")
        }
        return false
    }

    /// The port it listens on.
    public var port: Int { bound.withLock { $0 } ?? 0 }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// What the server wrote to standard error so far.
    public var standardError: String { Self.read(errorLog) }

    /// SIGKILL (a crash, no shutdown), and waits for the process to end.
    public func kill() { send(SIGKILL) }

    /// SIGKILL without waiting: for a request handler or worker that crashes the server under
    /// other requests' feet (`kill()` later reaps it).
    public func crash() { Foundation.kill(pid, SIGKILL) }

    /// SIGTERM (a graceful stop), and waits for the process to end.
    public func stop() { send(SIGTERM) }

    private func send(_ number: Int32) {
        exit.withLock { status in
            guard status == nil else { return }
            Foundation.kill(pid, number)
            status = Spawn.wait(pid)
        }
    }

    deinit { send(SIGKILL) }

    private static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}
