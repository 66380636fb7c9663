#if os(Linux)
import Foundation
import TestSupport
import Testing

/// `wallet deposit`, `withdraw` and `withdrawals` as users run them: the built binary against a
/// real wallet-server. Here the server runs without escrow settlement (the default), so every
/// escrow command must say so clearly; bad input must be refused before anything is sent.
@Suite("wallet deposit / withdraw / withdrawals", .serialized)
struct EscrowCLITests {
    static let address = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"

    @Test func aServerWithoutEscrowSettlementSaysSo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try TestServer(cli)
        defer { server.stop() }
        let wallet = try cli.registeredWallet("noescrow", server: server)
        #expect(try cli.run(["fund", "--json", "--wallet", wallet, "50.00"]).status == 0)

        for arguments in [
            ["deposit"], ["deposit", "--amount", "12.34"], ["withdraw", "5.00", "--to", Self.address], ["withdrawals"],
        ] {
            let json = try cli.run(arguments + ["--json", "--wallet", wallet])
            #expect(json.status == 5, "\(arguments): \(json.status) \(json.stdout) \(json.stderr)")
            #expect(json.errorCode == "escrow_not_configured", "\(arguments)")
            #expect(json.errorMessage.contains("does not settle through an escrow"), "\(arguments): \(json.errorMessage)")
            #expect((json.json["error"] as? [String: Any])?["exit"] as? Int == 5)
            let human = try cli.run(arguments + ["--wallet", wallet])
            #expect(human.status == 5)
            #expect(human.stdout.isEmpty)
            #expect(human.stderr.contains("error: This issuer does not settle through an escrow"), "\(human.stderr)")
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

    /// The whole round trip on a local EVM (run under scripts/with-evm, which sets
    /// OW_TEST_EVM_RPC): the deposit instructions, a deposit made from a key file with
    /// wallet-escrow, credited after its confirmation; a withdrawal followed with --wait until
    /// paid; the list and one withdrawal in full; a mistyped checksum refused by the issuer.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OW_TEST_EVM_RPC"] != nil, "needs scripts/with-evm"))
    func depositAndWithdrawOnALocalEVM() throws {
        let env = ProcessInfo.processInfo.environment
        let rpc = try #require(env["OW_EVM_RPC"]), escrow = try #require(env["OW_EVM_ESCROW"])
        let keys = try #require(env["OW_EVM_KEYS"]), start = env["OW_EVM_START_BLOCK"] ?? "0"
        let cli = try CLI()
        defer { cli.remove() }
        let directory = cli.path("server")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // One confirmation: a mined transaction counts at once, so nothing waits for more blocks.
        let server = try ServerProcess.startBlocking(
            arguments: [
                "--database", directory + "/server.sqlite", "--keys", directory + "/keys", "--log-level", "warning",
                "--escrow-rpc", rpc, "--escrow-address", escrow, "--escrow-operator-key", keys + "/operator.key",
                "--escrow-confirmations", "1", "--escrow-start-block", start, "--escrow-poll", "0.2",
            ], directory: directory, executable: CLI.binDirectory + "/wallet-server")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        let wallet = cli.path("depositor")
        #expect(try cli.run(["init", "--json", "--wallet", wallet, "--server", url]).status == 0)
        #expect(
            try cli.run(["register", "--json", "--wallet", wallet, "depositor-\(UUID().uuidString.prefix(6))@cli.test"]).status
                == 0
        )

        let png = cli.path("deposit.png")
        let deposit = try cli.run(["deposit", "--json", "--wallet", wallet, "--amount", "12.34", "--qr", png])
        #expect(deposit.status == 0, "\(deposit.stdout) \(deposit.stderr)")
        let ref = try #require(deposit.json["accountRef"] as? String)
        let chainID = try #require(deposit.json["chainId"] as? String)
        let token = try #require(deposit.json["token"] as? String)
        #expect(deposit.json["escrow"] as? String == escrow && deposit.json["currency"] as? String == "EUR")
        #expect(deposit.json["depositUri"] as? String == "ethereum:\(escrow)@\(chainID)/deposit?uint256=1234&bytes32=\(ref)")
        #expect(deposit.json["approveUri"] as? String == "ethereum:\(token)@\(chainID)/approve?address=\(escrow)&uint256=1234")
        #expect(deposit.json["files"] as? [String] == [png])
        #expect(FileManager.default.contents(atPath: png)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))

        let paid = try cli.run(
            ["deposit", "--rpc", rpc, "--key-file", keys + "/user1.key", "--escrow", escrow, "--ref", ref, "--amount", "12.34"],
            product: "wallet-escrow")
        #expect(paid.status == 0, "\(paid.stderr)")
        // Credited on the server's next pass (a liveness bound for a loaded machine).
        let deadline = ContinuousClock.now + .seconds(120)
        var settled = 0
        while settled != 1_234, ContinuousClock.now < deadline {
            settled = try cli.run(["status", "--json", "--wallet", wallet]).json["settled"] as? Int ?? 0
            if settled != 1_234 { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(settled == 1_234)

        let to = try #require(
            try cli.run(["address", "--json", "--key-file", keys + "/user2.key"], product: "wallet-escrow").json["address"]
                as? String)
        // A mistyped checksum (one letter's case flipped) is the issuer's to refuse: nothing is debited.
        let flipped = Self.flipCase(of: to)
        let typo = try cli.run(["withdraw", "--json", "--wallet", wallet, "1.00", "--to", flipped])
        #expect(typo.status == 5 && typo.errorCode == "invalid_field", "\(typo.stdout)")
        #expect(cli.config(wallet)["pendingWithdrawal"] == nil)

        let withdraw = try cli.run(["withdraw", "--json", "--wallet", wallet, "5.00", "--to", to, "--wait"])
        #expect(withdraw.status == 0, "\(withdraw.stdout) \(withdraw.stderr)")
        #expect(withdraw.json["status"] as? String == "paid" && withdraw.json["amount"] as? Int == 500)
        #expect(withdraw.json["to"] as? String == to && withdraw.json["settled"] as? Int == 734)
        let id = try #require(withdraw.json["id"] as? String)
        let tx = try #require(withdraw.json["txHash"] as? String)
        #expect(withdraw.stderr.contains("paid: paid on the blockchain (tx \(tx))"))

        let list = try cli.run(["withdrawals", "--json", "--wallet", wallet])
        #expect((list.json["withdrawals"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        let one = try cli.run(["withdrawals", id, "--wallet", wallet])
        #expect(one.status == 0 && one.stdout.contains("status   paid") && one.stdout.contains("tx       \(tx)"))
        #expect(cli.config(wallet)["pendingWithdrawal"] == nil)
    }

    /// `address` with the case of its first letter digit flipped: same bytes, wrong EIP-55 checksum.
    static func flipCase(of address: String) -> String {
        var flipped = false
        return String(
            address.enumerated().map { i, c -> Character in
                guard i >= 2, !flipped, c.isLetter else { return c }
                flipped = true
                return Character(c.isUppercase ? c.lowercased() : c.uppercased())
            })
    }
}
#endif
