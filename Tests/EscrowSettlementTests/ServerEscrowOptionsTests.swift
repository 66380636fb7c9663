import EVMTesting
import Foundation
import TestSupport
import Testing

/// `wallet-server serve` in escrow mode refuses to start, with one line saying what to fix,
/// when it could not settle safely: development funding on, EVM options without a node, an
/// operator key that is not the escrow's operator or that others may read.
@Suite(.enabled(if: LocalEVM.isAvailable, "needs the local EVM: scripts/with-evm"))
struct ServerEscrowOptionsTests {
    /// Runs wallet-server to its exit; returns its status and standard error.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stderr: String) {
        let scratch = try TemporaryDirectory("escrow-startup")
        // ProgramRun (`Spawn`), not Foundation's `Process`: see `Spawn`.
        let run = try ProgramRun.run(
            try BuiltProducts.path("wallet-server"),
            ["serve", "--keys", scratch.path("keys"), "--database", scratch.path("db.sqlite"), "--port", "0"] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, in: scratch.path)
        return (run.status, run.stderr)
    }

    @Test func escrowModeThatCannotSettleSafelyIsRefusedAtStart() async throws {
        let evm = try LocalEVM.fromEnvironment()
        let escrow = try #require(evm.escrow).checksummed
        let escrowArguments = ["--escrow-rpc", evm.url.absoluteString, "--escrow-address", escrow]

        let funding = try await Self.run(escrowArguments + ["--escrow-operator-key", evm.keyFile("operator"), "--dev-funding"])
        #expect(funding.status == 1)
        #expect(funding.stderr.contains("--dev-funding cannot be used with --escrow-rpc"), "\(funding.stderr)")

        let noNode = try await Self.run(["--escrow-address", escrow, "--escrow-operator-key", evm.keyFile("operator")])
        #expect(noNode.status == 1)
        #expect(noNode.stderr.contains("need --escrow-rpc"), "\(noNode.stderr)")

        let operatorAddress = try evm.key("operator").address.checksummed
        let userAddress = try evm.key("user1").address.checksummed
        let wrongKey = try await Self.run(escrowArguments + ["--escrow-operator-key", evm.keyFile("user1")])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("the escrow's operator is \(operatorAddress)"), "\(wrongKey.stderr)")
        #expect(
            wrongKey.stderr.contains(userAddress) && wrongKey.stderr.contains("wallet-escrow set-operator"), "\(wrongKey.stderr)")

        let scratch = try TemporaryDirectory("escrow-key")
        let readable = scratch.path("operator.key")
        try FileManager.default.copyItem(atPath: evm.keyFile("operator"), toPath: readable)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable)
        let insecure = try await Self.run(escrowArguments + ["--escrow-operator-key", readable])
        #expect(insecure.status == 1)
        #expect(insecure.stderr.contains("chmod 600"), "\(insecure.stderr)")
    }

    /// The earlier spellings (`--chain-*`, `WALLET_SERVER_CHAIN_*`) still configure escrow mode
    /// for one release, each use logged with its replacement; one setting given both ways is
    /// refused, since the two may disagree.
    @Test func theDeprecatedChainSpellingsStillWorkAndSaySo() async throws {
        let evm = try LocalEVM.fromEnvironment()
        let escrow = try #require(evm.escrow).checksummed
        let operatorAddress = try evm.key("operator").address.checksummed
        // A wrong operator key gets as far as asking the escrow: every old option was read.
        let old = try await Self.run([
            "--chain-rpc", evm.url.absoluteString, "--chain-escrow", escrow, "--chain-operator-key", evm.keyFile("user1"),
            "--chain-confirmations", "3", "--chain-poll", "1",
        ])
        #expect(old.status == 1)
        #expect(old.stderr.contains("the escrow's operator is \(operatorAddress)"), "\(old.stderr)")
        for (before, after) in [
            ("--chain-rpc", "--escrow-rpc"), ("--chain-escrow", "--escrow-address"),
            ("--chain-operator-key", "--escrow-operator-key"), ("--chain-confirmations", "--escrow-confirmations"),
            ("--chain-poll", "--escrow-poll"),
        ] {
            #expect(old.stderr.contains("\(before) is deprecated and goes in the next release: use \(after)."), "\(old.stderr)")
        }

        let variables = try await Self.run(
            [],
            environment: [
                "WALLET_SERVER_CHAIN_RPC": evm.url.absoluteString, "WALLET_SERVER_CHAIN_ESCROW": escrow,
                "WALLET_SERVER_CHAIN_OPERATOR_KEY": evm.keyFile("user1"),
            ])
        #expect(variables.status == 1)
        #expect(variables.stderr.contains("the escrow's operator is \(operatorAddress)"), "\(variables.stderr)")
        #expect(variables.stderr.contains("WALLET_SERVER_CHAIN_RPC is deprecated"), "\(variables.stderr)")

        let both = try await Self.run(["--escrow-rpc", evm.url.absoluteString, "--chain-rpc", evm.url.absoluteString])
        #expect(both.status == 1)
        #expect(
            both.stderr.contains("--chain-rpc is the earlier spelling of --escrow-rpc: give --escrow-rpc only."), "\(both.stderr)"
        )
    }
}
