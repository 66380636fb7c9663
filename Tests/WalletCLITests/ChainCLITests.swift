#if os(Linux)
import Foundation
import Testing

/// `wallet deposit`, `withdraw` and `withdrawals` as users run them: the built binary against a
/// real wallet-server. Here the server runs without chain settlement (the default), so every
/// chain command must say so clearly; bad input must be refused before anything is sent.
@Suite("wallet deposit / withdraw / withdrawals", .serialized)
struct ChainCLITests {
    static let address = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"

    @Test func aServerWithoutChainSettlementSaysSo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("nochain", server: server)
        #expect(try cli.run(["fund", "--json", "--wallet", wallet, "50.00"]).status == 0)

        for arguments in [["deposit"], ["deposit", "--amount", "12.34"], ["withdraw", "5.00", "--to", Self.address], ["withdrawals"]] {
            let json = try cli.run(arguments + ["--json", "--wallet", wallet])
            #expect(json.status == 5, "\(arguments): \(json.status) \(json.stdout) \(json.stderr)")
            #expect(json.errorCode == "chain_not_configured", "\(arguments)")
            #expect(json.errorMessage.contains("does not settle on a chain"), "\(arguments): \(json.errorMessage)")
            #expect((json.json["error"] as? [String: Any])?["exit"] as? Int == 5)
            let human = try cli.run(arguments + ["--wallet", wallet])
            #expect(human.status == 5)
            #expect(human.stdout.isEmpty)
            #expect(human.stderr.contains("error: This issuer does not settle on a chain"), "\(human.stderr)")
        }
        // The refused withdrawal is not kept for a retry, and nothing was debited.
        #expect(cli.config(wallet)["pendingWithdrawal"] == nil)
        let status = try cli.run(["status", "--json", "--wallet", wallet])
        #expect(status.json["settled"] as? Int == 5_000)
    }

    /// Usage errors exit 2 before the issuer is contacted: the server is gone, and still each
    /// is a usage error (an attempt to send would have been "issuer unreachable", exit 4).
    @Test func badInputIsRefusedBeforeAnythingIsSent() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        let wallet = try cli.registeredWallet("badinput", server: server)
        server.stop()

        let cases: [(arguments: [String], code: String, message: String)] = [
            (["withdraw", "1.234", "--to", Self.address], "invalid_amount", "'1.234' is not an amount in EUR"),
            (["withdraw", "0", "--to", Self.address], "invalid_amount", "is not an amount"),
            (["withdraw", "abc", "--to", Self.address], "invalid_amount", "is not an amount"),
            (["withdraw", "5.00", "--to", "0x1234"], "invalid_address", "this one has 4"),
            (["withdraw", "5.00", "--to", "70997970c51812dc3a010c7d01b50e0d17dc79c8"], "invalid_address", "starts with 0x"),
            (["withdraw", "5.00", "--to", "0x" + String(repeating: "0", count: 40)], "invalid_address", "zero address"),
            (["withdraw", "5.00", "--to", "0x70997970c51812dc3a010c7d01b50e0d17dc79cg"], "invalid_address", "only the digits"),
            (["withdraw", "5.00"], "usage", "--to"),
            (["withdraw", "5.00", "--to", Self.address, "--wait", "--timeout", "0"], "usage", "--timeout"),
            (["deposit", "--amount", "1.234"], "invalid_amount", "'1.234' is not an amount in EUR"),
            (["deposit", "--amount", "-1"], "usage", ""),
            (["withdrawals", "0x1234"], "invalid_withdrawal_id", "0x and 64 hex digits"),
            (["withdrawals", "--limit", "0"], "usage", "--limit"),
        ]
        for c in cases {
            let result = try cli.run(c.arguments + ["--json", "--wallet", wallet])
            #expect(result.status == 2, "\(c.arguments): \(result.status) \(result.stdout) \(result.stderr)")
            #expect(result.errorCode == c.code, "\(c.arguments): \(result.stdout)")
            #expect(c.message.isEmpty || result.errorMessage.contains(c.message), "\(c.arguments): \(result.errorMessage)")
        }
        let negative = try cli.run(["withdraw", "--wallet", wallet, "--to", Self.address, "--", "-5"])
        #expect(negative.status == 2 && negative.stderr.contains("is not an amount"), "\(negative.stderr)")
        let typo = try cli.run(["withdraw", "5.00", "--to", "0x1234", "--wallet", wallet])
        #expect(typo.status == 2 && typo.stderr.contains("Nothing was sent."))
        #expect(cli.config(wallet)["pendingWithdrawal"] == nil)
        // A well-formed request does try the issuer: exit 4, unreachable.
        let offline = try cli.run(["withdraw", "5.00", "--to", Self.address, "--json", "--wallet", wallet])
        #expect(offline.status == 4, "\(offline.stdout)")
    }
}
#endif
