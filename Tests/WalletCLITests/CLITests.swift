#if os(Linux)
import Foundation
import Testing

import NearbySession
import WalletCore
import WalletFlows

@testable import WalletCLI

/// The command line's conventions, run as users run it: the built binary, a real server.
@Suite("wallet command line", .serialized)
struct CLITests {
    // MARK: Usage errors and exit statuses

    /// argument-parser's own refusals exit 2 (not its 64) and speak JSON with --json.
    @Test func usageErrorsExitTwoAndPrintTheJSONErrorObject() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let bad = try cli.run(["request", "--json", "--expires", "abc"])
        #expect(bad.status == 2)
        #expect(bad.errorCode == "usage")
        #expect(bad.json["ok"] as? Bool == false)
        #expect((bad.json["error"] as? [String: Any])?["exit"] as? Int == 2)
        let unknown = try cli.run(["status", "--bogus"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Unknown option"))
        #expect(unknown.stdout.isEmpty)
        let missing = try cli.run(["pay", "--json"])
        #expect(missing.status == 2)
        #expect(missing.errorCode == "usage")
        let help = try cli.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("8  not logged in"))
    }

    /// `--expires` beyond any sane time crashed (UInt64 overflow, SIGILL); 0 was accepted.
    @Test func expiresIsRangeChecked() throws {
        let cli = try CLI()
        defer { cli.remove() }
        for value in ["18446744073709551615", "0", "\(7 * 24 * 3600 + 1)"] {
            let result = try cli.run(["request", "--json", "--wallet", cli.path("none"), "1.00", "--expires", value])
            #expect(result.status == 2, "--expires \(value): \(result.status) \(result.stderr)")
            #expect(result.errorCode == "usage")
            #expect(result.errorMessage.contains("--expires must be between 1 and 604800 seconds"))
        }
        for value in ["nan", "-1", "1e300"] {
            let result = try cli.run(["receive", "--json", "--listen", "127.0.0.1:0", "--timeout", value])
            #expect(result.status == 2, "--timeout \(value)")
        }
    }

    /// Every error code the command line can print maps to one exit status, whichever command
    /// meets it (checked over the source of every `CLIError(…)` with a literal code).
    @Test func everyErrorCodeHasOneExitStatus() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/Clients/WalletCLI"
        ).standardized
        let files =
            FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            ?? []
        #expect(!files.isEmpty)
        let pattern = try Regex(#"CLIError\(\s*"([a-z_]+)"(?:[^()]|\((?:[^()]|\([^()]*\))*\))*?exit:\s*\.(\w+)\s*\)"#)
        var exits: [String: Set<String>] = [:]
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) {
                let code = String(match.output[1].substring ?? "")
                exits[code, default: []].insert(String(match.output[2].substring ?? ""))
            }
        }
        #expect(exits.count > 20)
        for (code, statuses) in exits { #expect(statuses.count == 1, "\(code) exits with \(statuses.sorted())") }
    }

    /// Errors from the engine and the session map to one status per code, too.
    @Test func engineErrorsMapToOneExitStatus() {
        #expect(CLIError.from(WalletError.corruptFile("x")).exit == .input)
        #expect(CLIError.from(WalletError.wrongPassphrase).exit == .refused)
        #expect(CLIError.from(WalletError.storage("x")).exit == .failure)
        let refusal = CLIError.from(NearbyError.refused(code: "double_spend", message: "spent elsewhere"))
        #expect(refusal.code == "payee_refused")
        #expect(refusal.exit == .refused)
        #expect(refusal.description.contains("double_spend"))
    }

    // MARK: Against a server

    /// A limit of the wallet, as the README's exit table puts it: exit 3, not a usage error.
    @Test func requestsAboveTheHoldingLimitAreRefusedWithExitThree() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli, maxOfflineHolding: 20_000)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("payee", server: server)
        let above = try cli.run(["request", "--json", "--wallet", wallet, "200.01"])
        #expect(above.status == 3)
        #expect(above.errorCode == "amount_above_limit")
        // Money, never raw minor units.
        #expect(above.errorMessage.contains("200.01 EUR is above the offline holding limit 200.00 EUR"))
        let listen = try cli.run(["receive", "--json", "--wallet", wallet, "--listen", "127.0.0.1:0", "500.00"])
        #expect(listen.status == 3)
        #expect(listen.errorCode == "amount_above_limit")
        let fine = try cli.run(["request", "--json", "--wallet", wallet, "200.00", "--expires", "604800"])
        #expect(fine.status == 0, "\(fine.errorMessage)")
    }

    /// 20 `status` and 12 `sync` at once on one wallet directory: none sees "database is locked"
    /// (before the directory lock was taken ahead of opening the database, about 1 in 20
    /// `status` and 2 in 12 `sync` failed so).
    @Test func concurrentCommandsOnOneWalletAllSucceed() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("busy", server: server)
        for (count, arguments) in [
            (20, ["status", "--json", "--wallet", wallet]), (12, ["sync", "--json", "--wallet", wallet]),
            (20, ["status", "--offline", "--json", "--wallet", wallet]),
        ] {
            let results = try await cli.runConcurrently(count, arguments)
            let failed = results.filter { $0.status != 0 }
            #expect(failed.isEmpty, "\(arguments[0]): \(failed.count) of \(count) failed: \(failed.map(\.errorMessage))")
            if arguments[0] == "status", !arguments.contains("--offline") {
                #expect(results.allSatisfy { $0.json["online"] as? Bool == true })
            }
        }
    }

    /// With OW_PASSPHRASE the saved login is sealed under the wallet key; without it it stays
    /// plain in a mode-0600 file. Either way it keeps working across commands (it rotates).
    @Test func theSavedLoginIsEncryptedWhenTheKeyIs() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let secretEnv = ["OW_PASSPHRASE": "key passphrase for tests"]
        let sealed = try cli.registeredWallet("sealed", server: server, env: secretEnv)
        var config = cli.config(sealed)
        #expect(config["refreshToken"] == nil)
        let first = config["sealedRefreshToken"] as? String
        #expect(first != nil)
        let status = try cli.run(["status", "--json", "--wallet", sealed], env: secretEnv)
        #expect(status.status == 0)
        #expect(status.json["online"] as? Bool == true, "the sealed token opened and was used: \(status.stderr)")
        config = cli.config(sealed)
        #expect(config["refreshToken"] == nil)
        #expect(config["sealedRefreshToken"] as? String != first, "the rotated token is sealed again")
        // Without the passphrase the wallet does not open, so neither does the login.
        let locked = try cli.run(["status", "--json", "--wallet", sealed])
        #expect(locked.status == 3)
        #expect(locked.errorCode == "passphrase_required")

        let plain = try cli.registeredWallet("plain", server: server)
        config = cli.config(plain)
        #expect(config["refreshToken"] as? String != nil)
        #expect(config["sealedRefreshToken"] == nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: plain + "/config.json")
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0)
    }

    /// logout revokes the token at the issuer (a saved copy no longer works) and forgets it;
    /// offline it still forgets, and says the issuer was not told.
    @Test func logoutRevokesAndForgets() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("leaver", server: server)
        let saved = try #require(FileManager.default.contents(atPath: wallet + "/config.json"))
        let out = try cli.run(["logout", "--json", "--wallet", wallet])
        #expect(out.status == 0)
        #expect(out.json["revoked"] as? Bool == true)
        #expect(cli.config(wallet)["refreshToken"] == nil)
        let after = try cli.run(["sync", "--json", "--wallet", wallet])
        #expect(after.status == 8)
        #expect(after.errorCode == "not_logged_in")
        // The old token is dead at the issuer too.
        _ = FileManager.default.createFile(
            atPath: wallet + "/config.json", contents: saved, attributes: [.posixPermissions: 0o600])
        let replayed = try cli.run(["sync", "--json", "--wallet", wallet])
        #expect(replayed.status == 8)
        #expect(replayed.errorCode == "login_expired")

        let offline = try cli.registeredWallet("offline", server: server)
        let moved = try cli.run(["settings", "--json", "--wallet", offline, "--server", "http://127.0.0.1:1"])
        #expect(moved.status == 0)
        let gone = try cli.run(["logout", "--json", "--wallet", offline])
        #expect(gone.status == 0)
        #expect(gone.json["revoked"] as? Bool == false)
        #expect((gone.json["warning"] as? String) != nil)
        #expect(cli.config(offline)["refreshToken"] == nil)
        let human = try cli.run(["logout", "--wallet", offline])
        #expect(human.stdout.contains("Not logged in"))
    }

    // MARK: Backup

    @Test func backupRefusesWeakPassphrasesAndChecksTheFile() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("saver", server: server)
        #expect(try cli.run(["fund", "--json", "--wallet", wallet, "20.00"]).status == 0)
        #expect(try cli.run(["purchase", "--json", "--wallet", wallet, "20.00"]).status == 0)
        let file = cli.path("saver.backup")
        for weak in ["short1!", "aaaaaaaaaaaaaaaaaaaaaaaa", "Password2024!", "123456789012"] {
            let refused = try cli.run(["backup", "--json", "--wallet", wallet, file], env: ["OW_BACKUP_PASSPHRASE": weak])
            #expect(refused.status == 2, "\(weak)")
            #expect(refused.errorCode == "weak_passphrase")
            #expect(refused.errorMessage.contains("Nothing was written"))
            #expect(!FileManager.default.fileExists(atPath: file))
        }
        // No terminal and no variable: asked for, cannot ask.
        let unasked = try cli.run(["backup", "--json", "--wallet", wallet, file], env: ["OW_BACKUP_PASSPHRASE": ""])
        #expect(unasked.status == 2)
        #expect(unasked.errorCode == "secret_required")

        let done = try cli.run(["backup", "--json", "--wallet", wallet, file])
        #expect(done.status == 0, "\(done.errorMessage)")
        #expect(done.json["verified"] as? Bool == true)
        #expect((done.json["notes"] as? Int ?? 0) > 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cli.scratch).filter { $0.contains(".partial-") }
        #expect(leftovers.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: wallet).allSatisfy { !$0.hasPrefix(".backup-check") })
        let restored = try cli.run(["restore", "--json", "--wallet", cli.path("restored"), file])
        #expect(restored.status == 0, "\(restored.errorMessage)")
        #expect((restored.json["needsOnlineCheck"] as? Int ?? 0) + (restored.json["spendable"] as? Int ?? 0) == 2000)
    }

    @Test func passphrasePolicy() {
        let weak: [(String, String)] = [
            ("short", "characters"), ("aaaaaaaaaaaaaaaaaaaaa", "different"), ("abababababababab", "different"),
            ("lowercaseonly", "mix"), ("123456789012", "mix"), ("Password2024!", "common"), ("qwertyuiop12", "common"),
            ("abcdefghijklmnopqrstu", "common"), ("alice.smith 2024", "email"),
        ]
        for (passphrase, why) in weak {
            let reason = PassphrasePolicy.weakness(passphrase, email: "alice.smith@example.com")
            #expect(reason?.contains(why) == true, "\(passphrase): \(reason ?? "accepted")")
        }
        #expect(PassphrasePolicy.weakness("same as login 123", accountPassword: "same as login 123") != nil)
        for strong in ["correct horse battery staple", "e2e backup passphrase", "Tr0ub4dor&3xyz", "pelican-orbit-77"] {
            #expect(PassphrasePolicy.weakness(strong, email: "alice@example.com") == nil, "\(strong)")
        }
    }

    // MARK: Nearby failures and QR frames

    /// A failed nearby payment says whether anything was signed; when it was, paying again
    /// resends the same bytes.
    @Test func nearbyFailuresSayWhetherAnythingWasSigned() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let payer = try cli.registeredWallet("payer", server: server)
        let payee = try cli.registeredWallet("payee", server: server)
        #expect(try cli.run(["fund", "--json", "--wallet", payer, "10.00"]).status == 0)
        #expect(try cli.run(["purchase", "--json", "--wallet", payer, "10.00"]).status == 0)

        // A key id prefix is refused before anything is asked: a key can be made to match any
        // 8 or 12 hex digits; only the whole id (16) or the whole key is taken.
        let port = try TestServer.freePort()
        for prefix in ["01234567", "0123456789ab", "0123456789abcdef0", "0123456789abcdeg"] {
            let refused = try cli.run([
                "pay", "--json", "--wallet", payer, "127.0.0.1:\(port)", "--payee", prefix, "--timeout", "2",
            ])
            #expect(
                refused.status == 2 && refused.errorCode == "payee_required",
                "--payee \(prefix): \(refused.status) \(refused.errorMessage)")
            #expect(refused.errorMessage.contains("16 hex digits"))
        }

        // Nobody listens at the address: the request is never fetched, nothing is signed.
        let unfetched = try cli.run([
            "pay", "--json", "--wallet", payer, "127.0.0.1:\(port)", "--payee", "0123456789abcdef", "--timeout", "2",
        ])
        #expect(unfetched.status == 7, "\(unfetched.errorMessage)")
        #expect(unfetched.errorMessage.hasSuffix("Nothing was signed; nothing left this wallet."))

        // A nearby request whose listener is gone: signed and kept, the same bytes on retry.
        let requestFile = cli.path("nearby-request.txt")
        let listener = try cli.run(
            [
                "receive", "--json", "--wallet", payee, "--listen", "127.0.0.1:\(port)", "1.50", "--request-out", requestFile,
                "--timeout", "1",
            ])
        #expect(listener.status == 7)
        #expect(listener.errorMessage.contains("Nothing was received"))
        var hashes: [String] = []
        for _ in 0..<2 {
            let failed = try cli.run(["pay", "--json", "--wallet", payer, requestFile, "--via", "nearby", "--timeout", "2"])
            #expect(failed.status == 7, "\(failed.errorMessage)")
            #expect(
                failed.errorMessage.hasSuffix(
                    "The payment was signed and kept: run the same `wallet pay` again to resend the same bytes."))
            if let hash = failed.stderr.firstMatch(of: /sha256 ([0-9a-f]{64})/)?.1 { hashes.append(String(hash)) }
        }
        #expect(hashes.count == 2 && hashes[0] == hashes[1])

        // Not enough money: refused before signing.
        let request = try cli.run(["request", "--json", "--wallet", payee, "50.00"])
        let frames = (request.json["request"] as? [String]) ?? []
        let poor = try cli.run(["pay", "--json", "--wallet", payer, "--via", "qr"] + frames)
        #expect(poor.status == 3)
        #expect(poor.errorCode == "insufficient_funds")
        #expect(poor.errorMessage.hasSuffix("Nothing was signed; nothing left this wallet."))
        #expect(poor.errorMessage.contains("EUR"))
    }

    @Test func severalFramesAreShownOneAtATimeUnderTheirHeadings() throws {
        let frames = ["OW:1/3:AAAA", "OW:2/3:BBBB", "OW:3/3:CCCC"]
        let pages = try Codes.terminalPages(frames, title: "Payment")
        #expect(pages.count == 3)
        for (i, page) in pages.enumerated() {
            #expect(page.hasPrefix("Payment — frame \(i + 1)/3, QR version"))
            // One symbol per page.
            #expect(page.components(separatedBy: "\u{1B}[38;5;16;48;5;231m").count - 1 == page.split(separator: "\n").count - 1)
        }
    }
}
#endif
