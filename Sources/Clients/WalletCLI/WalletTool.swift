import ArgumentParser
import Foundation

/// `wallet`: the Offline Wallet command line.
@main
struct WalletTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "Pay and get paid offline with signed notes; settle with the issuer when online.",
        discussion: """
            Every command takes --wallet DIR (one directory per user) and --json (one JSON object on stdout).
            Secrets come from the environment or are asked for: OW_PASSPHRASE encrypts the wallet key (without it the key file is not encrypted, only mode 0600), OW_PASSWORD is the account password, OW_BACKUP_PASSPHRASE the backup passphrase.

            Exit status:
              0  ok
              1  unexpected failure
              2  usage
              3  the wallet refused (funds, limits, expired request, needs an online check)
              4  issuer unreachable
              5  issuer error
              6  incoming payment invalid, or a double spend
              7  nearby session failed (the message says if a payment was kept)
              8  not logged in
              9  unreadable file or code
            """,
        subcommands: [
            Init.self, Register.self, Login.self, Logout.self, Status.self, Purchase.self, Fund.self,
            RequestPayment.self, Pay.self, Receive.self, Confirm.self,
            Sync.self, SendOnline.self, Deposit.self, Withdraw.self, Withdrawals.self, History.self, Backup.self, Restore.self,
            Settings.self,
            Debug.self,  // hidden: crash points for scripts/crash-sweep
        ]
    )

    /// Runs the command like argument-parser's own `main()`, except that its usage errors
    /// (unknown options, bad values, failed `validate()`) exit with the documented status 2
    /// instead of 64, and print the JSON error object when `--json` was given: one exit status
    /// and one error shape whichever layer refuses.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let output = Output(json: wantsJSON(arguments))
        if let unknown = unknownCommand(arguments) {
            output.failure(unknown)
            exit(withError: ExitCode(unknown.exit.rawValue))
        }
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            // Our commands throw ExitCode after printing their own error.
            exit(withError: code)
        } catch {
            switch exitCode(for: error) {
            case .success:
                exit(withError: error)  // --help, --version: argument-parser prints them
            case .validationFailure:
                let usage = CLIError("usage", message(for: error), exit: .usage)
                if output.json {
                    output.failure(usage)
                } else {
                    FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                }
                exit(withError: ExitCode(usage.exit.rawValue))
            default:
                let cli = CLIError.from(error)
                output.failure(cli)
                exit(withError: ExitCode(cli.exit.rawValue))
            }
        }
    }

    /// The refusal for a first word that names no command (argument-parser would report the
    /// next option as unknown instead, e.g. "Unknown option '--json'" for `wallet frobnicate
    /// --json`); nil when the first word is a command or an option.
    static func unknownCommand(_ arguments: [String]) -> CLIError? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let commands = configuration.subcommands.map { $0._commandName }
        guard !commands.contains(first), first != "help" else { return nil }
        let listed = configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
        return CLIError(
            "usage",
            "Unknown command '\(first)'. Commands: \(listed.joined(separator: ", ")). See wallet --help, or wallet COMMAND --help.",
            exit: .usage)
    }

    /// `--json` among the options (not after a `--` terminator, where it would be an argument).
    static func wantsJSON(_ arguments: [String]) -> Bool {
        let options = arguments.firstIndex(of: "--").map { arguments[..<$0] } ?? arguments[...]
        return options.contains("--json")
    }
}
