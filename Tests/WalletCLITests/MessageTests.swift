#if os(Linux)
import Foundation
import Testing

/// What the command line tells people: money as money, one true sentence at a time, the
/// documented exit status, and commands that exist.
@Suite("wallet messages", .serialized)
struct MessageTests {
    private func request(_ cli: CLI, _ payee: String, _ amount: String) throws -> [String] {
        let request = try cli.run(["request", "--json", "--wallet", payee, amount])
        #expect(request.status == 0, "\(request.errorMessage)")
        return request.json["request"] as? [String] ?? []
    }

    @Test func amountsAreShownAsMoneyWithTheirCurrency() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let (payer, payee) = try cli.payerAndPayee(server)

        let other = try cli.run(
            ["pay", "--json", "--wallet", payer, "--via", "qr", "--amount", "50.00"] + request(cli, payee, "1.00"))
        #expect(other.status == 3)
        #expect(other.errorMessage.contains("the request asks for 1.00 EUR, not 50.00 EUR"), "\(other.errorMessage)")

        let poor = try cli.run(["pay", "--json", "--wallet", payer, "--via", "qr"] + request(cli, payee, "300.00"))
        #expect(poor.errorCode == "insufficient_funds")
        #expect(poor.errorMessage.contains("10.00 EUR spendable, 300.00 EUR needed"), "\(poor.errorMessage)")
    }

    /// A message that ends in a command gets the next sentence on its own line; a session
    /// failure before signing does not also claim a payment was kept.
    @Test func sentencesAreSeparatedAndSayOneThing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let (payer, payee) = try cli.payerAndPayee(server)
        let backup = cli.path("payer.backup")
        #expect(try cli.run(["backup", "--json", "--wallet", payer, backup]).status == 0)
        let restored = cli.path("restored")
        #expect(try cli.run(["restore", "--json", "--wallet", restored, backup]).status == 0)

        let unchecked = try cli.run(["pay", "--json", "--wallet", restored, "--via", "qr"] + request(cli, payee, "1.00"))
        #expect(unchecked.errorCode == "needs_online_check")
        #expect(
            unchecked.errorMessage.hasSuffix("Go online and run: wallet sync\nNothing was signed; nothing left this wallet."),
            "\(unchecked.errorMessage)")

        let port = try TestServer.freePort()
        let unfetched = try cli.run([
            "pay", "--json", "--wallet", payer, "127.0.0.1:\(port)", "--payee", "0123456789abcdef", "--timeout", "2",
        ])
        #expect(unfetched.status == 7)
        #expect(unfetched.errorMessage.hasSuffix("Nothing was signed; nothing left this wallet."))
        #expect(!unfetched.errorMessage.contains("kept"), "\(unfetched.errorMessage)")

        // The exit table in --help does not promise a kept payment either.
        #expect(try cli.run(["--help"]).stdout.contains("7  nearby session failed (the message says if a payment was kept)"))
    }

    /// A name no payer's wallet would accept is a usage error when the request is made.
    @Test func aPayeeNameOverSixtyFourBytesIsAUsageError() throws {
        let cli = try CLI()
        defer { cli.remove() }
        for name in [String(repeating: "a", count: 65), String(repeating: "é", count: 33)] {
            let result = try cli.run(["request", "--json", "--wallet", cli.path("none"), "1.00", "--name", name])
            #expect(result.status == 2, "\(result.errorMessage)")
            #expect(result.errorCode == "usage")
            #expect(result.errorMessage.contains("--name must be at most 64 bytes of UTF-8"))
            let listen = try cli.run([
                "receive", "--json", "--wallet", cli.path("none"), "--listen", "127.0.0.1:0", "--name", name,
            ])
            #expect(listen.status == 2)
        }
        #expect(!FileManager.default.fileExists(atPath: cli.path("none")))
    }

    @Test func unknownCommandsAreNamedAndTheCommandsListed() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let json = try cli.run(["frobnicate", "--json"])
        #expect(json.status == 2)
        #expect(json.errorCode == "usage")
        #expect(
            json.errorMessage.hasPrefix("Unknown command 'frobnicate'. Commands: init, register, login"), "\(json.errorMessage)")
        #expect(!json.errorMessage.contains("debug"))
        let human = try cli.run(["frobnicate"])
        #expect(human.status == 2)
        #expect(human.stderr.contains("Unknown command 'frobnicate'"))
        #expect(!human.stderr.contains("Unknown option"))
    }

    @Test func statusAfterLogoutSaysNotLoggedIn() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("leaver", server: server)
        #expect(try cli.run(["logout", "--wallet", wallet]).status == 0)
        let status = try cli.run(["status", "--wallet", wallet])
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix("○ not logged in\n"), "\(status.stdout)")
        #expect(status.stdout.contains("unknown (not logged in: wallet login --wallet \(wallet) EMAIL)"))
        #expect(!status.stdout.contains("(offline)"))
    }

    /// Logging out while the issuer is down removes the login here and says so, in plain words.
    @Test func anOfflineLogoutSaysWhatWasRemoved() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        let wallet = try cli.registeredWallet("offline", server: server)
        server.stop()
        let logout = try cli.run(["logout", "--wallet", wallet])
        #expect(logout.status == 0)
        #expect(
            logout.stdout.contains(
                "the saved login was removed from this wallet, but the issuer at \(server.url) could not be reached"),
            "\(logout.stdout)")
        for noise in ["NIO", "errno", "descriptor", "Error("] { #expect(!logout.stdout.contains(noise), "\(logout.stdout)") }
        #expect(cli.config(wallet)["refreshToken"] == nil)
        // Other commands name the failure plainly too.
        let login = try cli.run(["login", "--json", "--wallet", wallet, "x@cli.test"])
        #expect(login.status == 4)
        #expect(login.errorMessage.contains("Connection refused"), "\(login.errorMessage)")
        #expect(!login.errorMessage.contains("NIO"), "\(login.errorMessage)")
    }

    @Test func initOverPlainHTTPSaysTheIssuerIsNotPinned() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let created = try cli.run(["init", "--wallet", cli.path("w"), "--server", server.url])
        #expect(created.status == 0)
        #expect(created.stdout.contains("NOT pinned"), "\(created.stdout)")
        #expect(created.stdout.contains("plain http, which is unauthenticated"))
        #expect(!created.stdout.contains("\(server.url) pinned"))
        let json = try cli.run(["init", "--json", "--wallet", cli.path("j"), "--server", server.url])
        #expect(json.json["issuerAuthenticated"] as? Bool == false)
    }

    /// Progress names the restore exchange only for a wallet that has restored notes; the
    /// status rows keep one column for values, the longest label included.
    @Test func syncProgressAndStatusRowsFitTheWallet() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let (payer, _) = try cli.payerAndPayee(server)
        let plain = try cli.run(["sync", "--wallet", payer])
        #expect(plain.status == 0)
        #expect(!plain.stderr.contains("restored from a backup"), "\(plain.stderr)")
        #expect(plain.stderr.contains("2/7 announcing"))

        let backup = cli.path("payer.backup")
        #expect(try cli.run(["backup", "--json", "--wallet", payer, backup]).status == 0)
        let restored = cli.path("restored")
        #expect(try cli.run(["restore", "--json", "--wallet", restored, backup]).status == 0)
        let status = try cli.run(["status", "--offline", "--wallet", restored])
        let rows = status.stdout.split(separator: "\n").dropFirst().map(String.init)
        #expect(rows.contains { $0.hasPrefix("  needs online check") }, "\(status.stdout)")
        let valueColumns = Set(
            rows.filter { !$0.hasPrefix("last sync") && !$0.hasPrefix("settled") }.compactMap { row in
                row.firstIndex(where: \.isNumber).map { row.distance(from: row.startIndex, to: $0) }
            })
        #expect(valueColumns.count == 1, "\(status.stdout)")

        let email = try #require(cli.config(payer)["email"] as? String)
        #expect(try cli.run(["login", "--wallet", restored, email]).status == 0)
        let exchange = try cli.run(["sync", "--wallet", restored])
        #expect(exchange.status == 0, "\(exchange.stderr)")
        #expect(exchange.stderr.contains("1/7 exchanging notes restored from a backup"), "\(exchange.stderr)")
    }

    /// `create-admin` for an address that has an account says how to promote it, and does.
    @Test func createAdminOffersToPromoteAnExistingAccount() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("ops", server: server)
        let email = try #require(cli.config(wallet)["email"] as? String)
        let common = ["--database", cli.path("server/server.sqlite"), "--keys", cli.path("server/keys"), "--email", email]
        let refused = try cli.run(["create-admin"] + common + ["--password", "a long admin password"], product: "wallet-server")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("wallet-server create-admin --email \(email) --promote"), "\(refused.stderr)")
        let promoted = try cli.run(["create-admin"] + common + ["--promote"], product: "wallet-server")
        #expect(promoted.status == 0, "\(promoted.stderr)")
        #expect(promoted.stdout.contains("is now an admin"))
        let again = try cli.run(["create-admin"] + common + ["--promote"], product: "wallet-server")
        #expect(again.stdout.contains("is an admin already"))
    }

    /// The old copy of a restored wallet pays after the restore exchanged its notes: its payee
    /// is told it was paid from the payer's account after a restore conflict, not of fraud.
    @Test func thePayeeOfARestoreConflictIsNotToldOfFraud() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let (old, payee) = try cli.payerAndPayee(server)
        let email = try #require(cli.config(old)["email"] as? String)
        let backup = cli.path("old.backup")
        #expect(try cli.run(["backup", "--json", "--wallet", old, backup]).status == 0)
        let restored = cli.path("restored")
        #expect(try cli.run(["restore", "--json", "--wallet", restored, backup]).status == 0)
        #expect(try cli.run(["login", "--json", "--wallet", restored, email]).status == 0)
        let exchanged = try cli.run(["sync", "--json", "--wallet", restored])
        #expect(exchanged.status == 0, "\(exchanged.errorMessage)")

        // The old device still holds the notes the restore exchanged, and pays with them.
        let paid = try cli.run(["pay", "--json", "--wallet", old, "--via", "qr"] + request(cli, payee, "2.00"))
        #expect(paid.status == 0, "\(paid.errorMessage)")
        let received = try cli.run(["receive", "--json", "--wallet", payee] + (paid.json["payment"] as? [String] ?? []))
        #expect(received.status == 0, "\(received.errorMessage)")
        let sync = try cli.run(["sync", "--wallet", payee])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Restore conflict (case "), "\(sync.stdout)")
        #expect(sync.stdout.contains("The issuer paid you from the payer's account. This is not fraud"))
        #expect(!sync.stdout.contains("Double spend"), "\(sync.stdout)")
    }
}
#endif
