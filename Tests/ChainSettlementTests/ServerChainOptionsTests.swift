import ChainTesting
import Foundation
import TestSupport
import Testing

/// `wallet-server serve` in chain mode refuses to start, with one line saying what to fix,
/// when it could not settle safely: development funding on, chain options without a node, an
/// operator key that is not the escrow's operator or that others may read.
@Suite(.enabled(if: LocalChain.isAvailable, "needs the local chain: scripts/with-chain"))
struct ServerChainOptionsTests {
    /// Runs wallet-server to its exit; returns its status and standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let scratch = try TemporaryDirectory("chain-startup")
        // ProgramRun (`Spawn`), not Foundation's `Process`: see `Spawn`.
        let run = try ProgramRun.run(
            try BuiltProducts.path("wallet-server"),
            ["serve", "--keys", scratch.path("keys"), "--database", scratch.path("db.sqlite"), "--port", "0"] + arguments,
            in: scratch.path)
        return (run.status, run.stderr)
    }

    @Test func chainModeThatCannotSettleSafelyIsRefusedAtStart() async throws {
        let chain = try LocalChain.fromEnvironment()
        let escrow = try #require(chain.escrow).checksummed
        let chainArguments = ["--chain-rpc", chain.url.absoluteString, "--chain-escrow", escrow]

        let funding = try await Self.run(chainArguments + ["--chain-operator-key", chain.keyFile("operator"), "--dev-funding"])
        #expect(funding.status == 1)
        #expect(funding.stderr.contains("--dev-funding cannot be used with --chain-rpc"), "\(funding.stderr)")

        let noNode = try await Self.run(["--chain-escrow", escrow, "--chain-operator-key", chain.keyFile("operator")])
        #expect(noNode.status == 1)
        #expect(noNode.stderr.contains("need --chain-rpc"), "\(noNode.stderr)")

        let operatorAddress = try chain.key("operator").address.checksummed
        let userAddress = try chain.key("user1").address.checksummed
        let wrongKey = try await Self.run(chainArguments + ["--chain-operator-key", chain.keyFile("user1")])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("the escrow's operator is \(operatorAddress)"), "\(wrongKey.stderr)")
        #expect(
            wrongKey.stderr.contains(userAddress) && wrongKey.stderr.contains("wallet-chain set-operator"), "\(wrongKey.stderr)")

        let scratch = try TemporaryDirectory("chain-key")
        let readable = scratch.path("operator.key")
        try FileManager.default.copyItem(atPath: chain.keyFile("operator"), toPath: readable)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable)
        let insecure = try await Self.run(chainArguments + ["--chain-operator-key", readable])
        #expect(insecure.status == 1)
        #expect(insecure.stderr.contains("chmod 600"), "\(insecure.stderr)")
    }
}
