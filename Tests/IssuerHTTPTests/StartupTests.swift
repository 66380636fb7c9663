import Foundation
import IssuerTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `wallet-server` facing a database it cannot use at start: it must say so and exit, after a
/// bounded wait, instead of retrying forever or crashing.
@Suite struct StartupTests {
    /// What a finished `wallet-server` run left behind.
    struct Outcome {
        let status: Int32
        let stderr: String
        /// False when the process was still running after the time limit and had to be killed.
        let exited: Bool
    }

    /// A running `wallet-server` whose standard error goes to a file (started with `Spawn`, not
    /// Foundation's `Process`: see `Spawn`).
    final class Launched: Sendable {
        let pid: pid_t
        let scratch: TemporaryDirectory
        var errorLog: String { scratch.path("stderr") }

        init(_ arguments: [String]) throws {
            scratch = try TemporaryDirectory("startup")
            let dir = scratch.path
            pid = try Spawn.start(
                try BuiltProducts.path("wallet-server"), ["serve", "--keys", dir + "/keys"] + arguments, directory: dir,
                standardError: dir + "/stderr")
        }

        /// Waits for the process to end; kills it if it is still running after `limit` seconds
        /// (the behaviour under test is that it does not need killing).
        func finish(limit: Double = 120) async -> Outcome {
            let deadline = ContinuousClock.now + .seconds(limit)
            var status = Spawn.poll(pid)
            while status == nil && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
                status = Spawn.poll(pid)
            }
            let exited = status != nil
            if !exited {
                kill(pid, SIGKILL)
                status = Spawn.wait(pid)
            }
            let stderr = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
            return Outcome(status: status ?? -1, stderr: stderr, exited: exited)
        }
    }

    static func run(_ arguments: [String], limit: Double = 120) async throws -> Outcome {
        await (try Launched(["--port", "0"] + arguments)).finish(limit: limit)
    }

    @Test func anUnreachablePostgreSQLIsAClearErrorAfterTheConfiguredWait() async throws {
        // Nothing listens on port 1 of the loopback: every connection is refused.
        let outcome = try await Self.run(["--postgres", "postgres://wallet@127.0.0.1:1/wallet", "--database-wait", "2"])
        #expect(outcome.exited, "wallet-server kept retrying; it was killed")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("cannot reach PostgreSQL at 127.0.0.1:1 after 2 s:"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("refused"), "the cause is named: \(outcome.stderr)")
    }

    @Test func anUnusableSQLitePathIsAClearError() async throws {
        let scratch = try TemporaryDirectory("startup-sqlite")
        let dir = scratch.path
        // Under a regular file (no directory can be made there), a directory, and a file that is not SQLite.
        let file = dir + "/plain-file"
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let garbage = dir + "/garbage.sqlite"
        try Data(repeating: 0x41, count: 4_096).write(to: URL(fileURLWithPath: garbage))
        for (path, phrase) in [
            (file + "/server.sqlite", "cannot open the SQLite database at \(file)/server.sqlite: "),
            (dir, "cannot open the SQLite database at \(dir): "),
            (garbage, "the SQLite database at \(garbage): "),
        ] {
            let outcome = try await Self.run(["--database", path])
            #expect(outcome.exited)
            #expect(outcome.status != 0, "\(path)")
            #expect(outcome.stderr.contains(phrase), "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("Program crashed"), "\(outcome.stderr)")
        }
    }

    /// On a live PostgreSQL: a database that does not exist fails at once (waiting cannot fix
    /// it), and a good start logs no warning about the pool not running yet.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"] != nil))
    func aLivePostgreSQLRefusalFailsFastAndAGoodStartIsQuiet() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["OW_TEST_POSTGRES_URL"])
        let base = try #require(URLComponents(string: url))
        var missing = base
        missing.path = "/no_such_database_\(UUID().uuidString.prefix(8).lowercased())"
        let refused = try await Self.run(["--postgres", try #require(missing.string), "--database-wait", "600"], limit: 60)
        #expect(refused.exited, "a refusal that waiting cannot fix was retried")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("refused the connection"), "\(refused.stderr)")
        #expect(refused.stderr.contains("does not exist"), "\(refused.stderr)")

        // A good start (in a schema of its own): serve, answer /health, stop; nothing logged
        // about the pool not running yet.
        let schema = try await ScratchDatabase.postgres(url: url, prefix: "s")
        let scratch = try TemporaryDirectory("startup-good")
        let server = try await ServerProcess.start(
            arguments: ["--keys", scratch.path("keys"), "--log-level", "warning", "--postgres", try #require(schema.schemaURL)],
            directory: scratch.path)
        let (_, response) = try await URLSession.shared.data(from: server.url.appendingPathComponent("health"))
        server.stop()
        let text = server.standardError
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(text)")
        #expect(!text.contains("hasn't been called"), "\(text)")
    }
}
