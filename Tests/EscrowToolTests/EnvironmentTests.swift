import Foundation
import TestSupport
import Testing

/// How `wallet-escrow` finds its node when --rpc is not given.
@Suite struct EnvironmentTests {
    static let escrow = "0x" + String(repeating: "ab", count: 20)

    /// The variable's earlier name still works for one release and says what replaces it; the
    /// current name wins when both are set. (A URL no node answers on is enough: the tool stops
    /// at the URL check, before any request.)
    @Test func theEarlierRPCVariableStillWorksAndSaysSo() throws {
        let scratch = try TemporaryDirectory("escrow-tool")
        var environment = ProcessInfo.processInfo.environment
        environment["WALLET_ESCROW_RPC"] = nil
        environment["WALLET_CHAIN_RPC"] = "ftp://old.example"
        let tool = try BuiltProducts.path("wallet-escrow")
        let old = try ProgramRun.run(tool, ["status", "--escrow", Self.escrow], environment: environment, in: scratch.path)
        #expect(old.status != 0)
        #expect(old.stderr.contains("WALLET_CHAIN_RPC is deprecated and goes in the next release: use WALLET_ESCROW_RPC."))
        #expect(old.stderr.contains("'ftp://old.example' is not an http(s) URL"), "\(old.stderr)")

        environment["WALLET_ESCROW_RPC"] = "ftp://new.example"
        let both = try ProgramRun.run(tool, ["status", "--escrow", Self.escrow], environment: environment, in: scratch.path)
        #expect(both.stderr.contains("'ftp://new.example' is not an http(s) URL"), "\(both.stderr)")
        #expect(!both.stderr.contains("deprecated"))
    }
}
