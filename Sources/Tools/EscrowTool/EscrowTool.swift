// `wallet-escrow`: the escrow's operator and test tool — keys, the escrow's state, token
// balances, the owner's actions, and a deposit or transfer from a key file (docs/server.md).
import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

@main
struct WalletEscrow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-escrow",
        abstract: "Operate and test the wallet's escrow on an Ethereum-compatible network.",
        discussion: """
            Every command that talks to the EVM node takes --rpc URL (or env WALLET_ESCROW_RPC); every command takes --json (one JSON object on stdout; token amounts in it are integer strings of token units, so any uint256 is exact).
            Key files hold 64 hex digits and a newline and must have mode 0600.
            Amounts are written with the token's decimals (12.34 for a 2-decimal token), never rounded.
            Transactions are EIP-1559: priority fee from eth_maxPriorityFeePerGas (1 gwei if the node has none), max fee 2 × base fee + priority, gas limit eth_estimateGas × 1.2.

            Exit status:
              0  ok
              1  unexpected failure
              2  usage (bad option, amount, address, reference, no --rpc)
              3  refused (a revert, not the owner or pending owner, paused, too little balance)
              4  node unreachable or a nonsensical answer
              5  sent but not mined within --timeout
              9  key file unreadable, insecure, or already existing
            """,
        subcommands: [
            NewKey.self, AddressOf.self, Status.self, Balance.self, Deposit.self, Transfer.self,
            Pause.self, Unpause.self, SetOperator.self, SetDailyCap.self, TransferOwnership.self, AcceptOwnership.self,
        ]
    )

    /// argument-parser's `main()`, but its usage errors exit with the documented status 2 (not
    /// 64) and print the JSON error object when --json was given.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let output = Output(json: arguments.contains("--json"))
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            exit(withError: code)
        } catch {
            switch exitCode(for: error) {
            case .success:
                exit(withError: error)
            case .validationFailure:
                if output.json {
                    print(
                        Output.encode([
                            "ok": false,
                            "error": ["code": "usage", "message": message(for: error), "exit": Int(Exit.usage.rawValue)],
                        ]))
                } else {
                    FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                }
                exit(withError: ExitCode(Exit.usage.rawValue))
            default:
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                exit(withError: ExitCode(Exit.failure.rawValue))
            }
        }
    }
}
