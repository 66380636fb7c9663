#if os(Linux)
import Foundation
import Testing

/// The commands `restore` and a server-less `sync` tell the user to run work when pasted: the
/// backup carries the issuer's address, and a wallet without one is told a command that sets
/// it on an existing wallet.
@Suite("commands printed to paste next", .serialized)
struct RestoreNextStepTests {
    /// Runs a printed command line through the harness with the placeholders filled in.
    private func paste(_ line: String, _ cli: CLI, email: String, server: String) throws -> CLI.Result {
        var words = line.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
        #expect(words.first == "wallet", "not a wallet command: \(line)")
        words.removeFirst()
        #expect(!words.contains("EMAIL") || !words.contains("--server") || words.contains("URL"))
        return try cli.run(words.map { $0 == "EMAIL" ? email : $0 == "URL" ? server : $0 })
    }

    /// Restores `file` into a new directory, checks the commands it prints to run next
    /// (`login` as given, then `sync`), and runs each as pasted. Returns the directory.
    @discardableResult
    private func restoreAndPaste(_ file: String, _ cli: CLI, login: String, email: String, server: String) throws -> String {
        let directory = cli.path("restored")
        let restored = try cli.run(["restore", "--wallet", directory, file])
        #expect(restored.status == 0, "\(restored.stderr)")
        // The lines of the human output that are commands to run (indented `wallet …`).
        let next = restored.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            $0.hasPrefix("wallet ")
        }
        #expect(
            next == ["wallet login --wallet \(directory) \(login)", "wallet sync --wallet \(directory)"], "\(restored.stdout)")
        for line in next {
            let result = try paste(line, cli, email: email, server: server)
            #expect(result.status == 0, "\(line): \(result.stderr)")
        }
        return directory
    }

    @Test func theBackupCarriesTheIssuerAndRestoresNextStepsWorkAsPasted() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("saver", server: server)
        let email = try #require(cli.config(wallet)["email"] as? String)
        #expect(try cli.run(["fund", "--json", "--wallet", wallet, "20.00"]).status == 0)
        #expect(try cli.run(["purchase", "--json", "--wallet", wallet, "20.00"]).status == 0)
        let file = cli.path("saver.backup")
        #expect(try cli.run(["backup", "--json", "--wallet", wallet, file]).status == 0)

        let restored = try restoreAndPaste(file, cli, login: "EMAIL", email: email, server: server.url)
        #expect(cli.config(restored)["server"] as? String == server.url)
    }

    /// A wallet that never named its issuer: its backup (as backups made before they carried
    /// the issuer) restores with the `--server URL` placeholder printed, and `sync` on it names
    /// a command that sets the issuer on this wallet; each works as pasted.
    @Test func aWalletWithoutAnIssuerIsToldCommandsThatWork() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let account = try cli.registeredWallet("owner", server: server)
        let email = try #require(cli.config(account)["email"] as? String)
        let bare = cli.path("bare")
        #expect(try cli.run(["init", "--json", "--wallet", bare]).status == 0)
        let file = cli.path("bare.backup")
        #expect(try cli.run(["backup", "--json", "--wallet", bare, file]).status == 0)

        try restoreAndPaste(file, cli, login: "--server URL EMAIL", email: email, server: server.url)

        let sync = try cli.run(["sync", "--wallet", bare])
        #expect(sync.status == 8)
        let suggested = try #require(sync.stderr.firstMatch(of: /Set it and log in: (wallet [^(]*EMAIL)/)?.1, "\(sync.stderr)")
        #expect(!sync.stderr.contains("wallet init"))
        let login = try paste(String(suggested), cli, email: email, server: server.url)
        #expect(login.status == 0, "\(suggested): \(login.stderr)")
        #expect(try cli.run(["sync", "--wallet", bare]).status == 0)
    }
}
#endif
