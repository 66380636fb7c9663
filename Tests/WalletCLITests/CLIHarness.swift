#if os(Linux)
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the real `wallet` binary (and a real `wallet-server`) built next to this test bundle.
struct CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout as the one JSON object `--json` prints.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
        }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String { (json["error"] as? [String: Any])?["message"] as? String ?? stderr }
    }

    /// The directory holding the built products (`swift build --build-tests` builds them all).
    static let binDirectory: String = BuiltProducts.directory ?? "(no built products next to the tests)"

    static var wallet: String { binDirectory + "/wallet" }

    let scratch: String
    var environment: [String: String]

    init() throws {
        scratch = NSTemporaryDirectory() + "wallet-cli-tests-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OW_") }
        environment["OW_PASSWORD"] = "cli tests password 123"
        environment["OW_BACKUP_PASSPHRASE"] = "cli tests backup passphrase 1"
        environment["XDG_DATA_HOME"] = scratch + "/xdg"
        guard FileManager.default.isExecutableFile(atPath: Self.wallet) else {
            throw HarnessError("No built wallet binary at \(Self.wallet): run swift build --build-tests first.")
        }
    }

    func path(_ name: String) -> String { scratch + "/" + name }

    /// Runs `wallet ARGS` (or another built product) to completion; output goes through files,
    /// so concurrent runs never block on a full pipe.
    func run(_ arguments: [String], env extra: [String: String] = [:], product: String = "wallet") throws -> Result {
        let run = try ProgramRun.run(
            Self.binDirectory + "/" + product, arguments, environment: environment.merging(extra) { $1 }, in: scratch)
        return Result(status: run.status, stdout: run.stdout, stderr: run.stderr)
    }

    /// Runs `count` commands at once and returns every result.
    func runConcurrently(_ count: Int, _ arguments: [String]) async throws -> [Result] {
        try await withThrowingTaskGroup(of: Result.self) { group in
            for _ in 0..<count { group.addTask { try self.run(arguments) } }
            var results: [Result] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: scratch) }
}

/// The harness could not set something up (the shared error of the test-support modules).
typealias HarnessError = TestSupportError

/// A development `wallet-server` (SQLite, funding on) on a port the system picked, ready when
/// made (it waits for the server's port file), stopped by `stop()`.
final class TestServer: Sendable {
    let url: String
    let port: Int
    private let process: ServerProcess

    init(_ cli: CLI, maxOfflineHolding: Int = 50_000) throws {
        let directory = cli.path("server")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        process = try ServerProcess.startBlocking(
            arguments: [
                "--database", directory + "/server.sqlite", "--keys", directory + "/keys",
                "--dev-funding", "--log-level", "warning", "--max-offline-holding", "\(maxOfflineHolding)",
            ], directory: directory, executable: CLI.binDirectory + "/wallet-server")
        port = process.port
        url = "http://127.0.0.1:\(port)"
    }

    func stop() { process.stop() }

    /// A loopback port nobody listened on a moment ago (for "nobody answers there").
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw HarnessError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension CLI {
    /// A wallet in `scratch/NAME`, registered as NAME@cli.test with the server.
    @discardableResult
    func registeredWallet(_ name: String, server: TestServer, env: [String: String] = [:]) throws -> String {
        let directory = path(name)
        let created = try run(["init", "--json", "--wallet", directory, "--server", server.url], env: env)
        #expect(created.status == 0, "init: \(created.errorMessage)")
        let registered = try run(
            ["register", "--json", "--wallet", directory, "\(name)-\(UUID().uuidString.prefix(6))@cli.test"], env: env)
        #expect(registered.status == 0, "register: \(registered.errorMessage)")
        return directory
    }

    /// A payer holding `funds` of notes and a payee, both registered with `server`.
    func payerAndPayee(_ server: TestServer, funds: String = "10.00") throws -> (payer: String, payee: String) {
        let payer = try registeredWallet("payer", server: server)
        let payee = try registeredWallet("payee", server: server)
        #expect(try run(["fund", "--json", "--wallet", payer, funds]).status == 0)
        #expect(try run(["purchase", "--json", "--wallet", payer, funds]).status == 0)
        return (payer, payee)
    }

    func config(_ directory: String) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: directory + "/config.json") else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
#endif
