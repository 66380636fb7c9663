#if os(Linux)
import Foundation
import TestSupport
import Testing
import WalletHTTPS
import WalletSync

/// The `wallet` command line against an HTTPS server it pins, and a scan of everything both
/// wrote for the secrets they handled: none may appear, in any encoding.
@Suite(.serialized) struct SecretsInLogsTests {
    static let password = "secrets test password 1234"

    /// Runs `wallet ARGS` with the test's environment; must exit with `status`.
    static func wallet(_ arguments: [String], in directory: String, status: Int32 = 0, log: inout String) throws -> ProgramRun {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OW_") }
        environment["OW_PASSWORD"] = password
        let run = try Run.program(try BuiltProducts.path("wallet"), arguments, environment: environment, in: directory)
        log += run.stdout + run.stderr
        #expect(run.status == status, "wallet \(arguments.joined(separator: " ")): \(run.stdout) \(run.stderr)")
        return run
    }

    /// Every encoding a secret could be logged in: raw bytes, hex (both cases), base64, base64url.
    static func encodings(_ bytes: [UInt8]) -> [String: [UInt8]] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let base64 = Data(bytes).base64EncodedString()
        let base64URL = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return [
            "raw": bytes, "hex": Array(hex.utf8), "HEX": Array(hex.uppercased().utf8), "base64": Array(base64.utf8),
            "base64url": Array(base64URL.utf8),
        ]
    }

    @Test func aWalletBuysAndSyncsOverPinnedHTTPSAndNoSecretReachesAnyLog() async throws {
        let scratch = try TemporaryDirectory("secrets")
        let fixtures = try TLSFixtures(in: scratch.path)
        let keys = scratch.path("keys")
        // Trace level: everything the server can log is logged.
        let server = try await ServerProcess.start(
            arguments: [
                "--database", scratch.path("server.sqlite"), "--keys", keys, "--dev-funding", "--log-level", "trace",
                "--tls-cert", fixtures.serverCert, "--tls-key", fixtures.serverKey,
            ],
            directory: scratch.path)
        var cliOutput = ""
        let url = "https://127.0.0.1:\(server.port)"
        let pin = try fixtures.pin()

        // The command line: init pins the key, later commands keep pinning (from config.json).
        let alice = scratch.path("alice")
        _ = try Self.wallet(["init", "--wallet", alice, "--server", url, "--server-pin", pin], in: scratch.path, log: &cliOutput)
        let config = try String(contentsOfFile: alice + "/config.json", encoding: .utf8)
        #expect(config.contains(pin.replacingOccurrences(of: "/", with: "\\/")))
        _ = try Self.wallet(["register", "--wallet", alice, "alice@example.com"], in: scratch.path, log: &cliOutput)
        _ = try Self.wallet(["fund", "--wallet", alice, "50.00"], in: scratch.path, log: &cliOutput)
        _ = try Self.wallet(["purchase", "--wallet", alice, "20.00"], in: scratch.path, log: &cliOutput)
        let sync = try Self.wallet(["sync", "--wallet", alice, "--json"], in: scratch.path, log: &cliOutput)
        #expect(sync.stdout.contains("\"ok\":true"))
        let status = try Self.wallet(["status", "--wallet", alice, "--json"], in: scratch.path, log: &cliOutput)
        #expect(status.stdout.contains("\"ok\":true"))
        // An error: a wrong password (401), and a wallet that pins another key (refused, exit 5).
        var wrongPassword = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OW_") }
        wrongPassword["OW_PASSWORD"] = "not the password at all"
        let refused = try Run.program(
            try BuiltProducts.path("wallet"), ["login", "--wallet", alice, "alice@example.com"], environment: wrongPassword,
            in: scratch.path)
        cliOutput += refused.stdout + refused.stderr
        #expect(refused.status == 5 || refused.status == 8, "\(refused.stderr)")
        let other = scratch.path("mallory")
        let otherPin = "sha256/" + Data(repeating: 1, count: 32).base64EncodedString()
        let pinned = try Self.wallet(
            ["init", "--wallet", other, "--server", url, "--server-pin", otherPin], in: scratch.path, status: 5, log: &cliOutput)
        #expect(pinned.stderr.contains("The server's public key is not the pinned one"))

        // The API directly: tokens to look for, a refresh, and a refused purchase body.
        let client = IssuerClient(
            serverURL: URL(string: url)!, transport: try HTTPSTransport(trust: .publicKey(try #require(ServerKeyPin(pin)))))
        let tokens = try await client.login(email: "alice@example.com", password: Self.password)
        _ = try await client.account()
        let rotated = try await client.resume(refreshToken: tokens.refreshToken)
        server.stop()

        // What the wallet saved: its login token (plain: no OW_PASSPHRASE here).
        let saved =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: alice + "/config.json")))
            as? [String: Any]
        let walletRefresh = try #require(saved?["refreshToken"] as? String)

        var secrets: [(String, [UInt8])] = [
            ("password", Array(Self.password.utf8)), ("access token", Array(tokens.accessToken.utf8)),
            ("access token signature", Array((tokens.accessToken.split(separator: ".").last.map(String.init) ?? "").utf8)),
            ("refresh token", Array(tokens.refreshToken.utf8)), ("rotated access token", Array(rotated.accessToken.utf8)),
            ("rotated refresh token", Array(rotated.refreshToken.utf8)), ("wallet's refresh token", Array(walletRefresh.utf8)),
        ]
        for file in try FileManager.default.contentsOfDirectory(atPath: keys) {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: keys + "/" + file)))
            for (form, encoded) in Self.encodings(bytes) { secrets.append(("\(file) (\(form))", encoded)) }
        }
        // The TLS key: its PEM body lines and its DER in every encoding.
        let pemLines = try String(contentsOfFile: fixtures.serverKey, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("-----")
        }
        for (i, line) in pemLines.enumerated() where line.count >= 16 {
            secrets.append(("TLS key PEM line \(i)", Array(line.utf8)))
        }
        if let der = Data(base64Encoded: pemLines.joined()) {
            for (form, encoded) in Self.encodings(Array(der)) { secrets.append(("TLS key DER (\(form))", encoded)) }
        }
        #expect(secrets.count > 20)

        let serverLog = Array(server.standardError.utf8)
        #expect(server.standardError.contains("trace") || server.standardError.contains("debug"), "the log ran at trace level")
        #expect(server.standardError.contains("/v1/notes/purchase"), "the purchase went through this server")
        let cliLog = Array(cliOutput.utf8)
        for (name, secret) in secrets where secret.count >= 8 {
            #expect(!Self.contains(serverLog, secret), "the server log holds the \(name)")
            #expect(!Self.contains(cliLog, secret), "the wallet's output holds the \(name)")
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { hay in
            var i = 0
            while i + needle.count <= hay.count {
                if hay[i] == needle[0], Array(hay[i..<(i + needle.count)]) == needle { return true }
                i += 1
            }
            return false
        }
    }
}
#endif
