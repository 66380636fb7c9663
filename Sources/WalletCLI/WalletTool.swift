import ArgumentParser

/// `wallet`: the Offline Wallet command line.
@main
struct WalletTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "Pay and get paid offline with signed notes; settle with the issuer when online.",
        discussion: """
            Every command takes --wallet DIR (one directory per user) and --json (one JSON object on stdout).
            Passphrases and passwords come from OW_PASSPHRASE, OW_PASSWORD and OW_BACKUP_PASSPHRASE, or are asked for.

            Exit status:
              0  ok
              1  unexpected failure
              2  usage
              3  the wallet refused (funds, limits, expired request, needs an online check)
              4  issuer unreachable
              5  issuer error
              6  incoming payment invalid, or a double spend
              7  nearby session failed (the payment is kept: pay the same request again)
              8  not logged in
              9  unreadable file or code
            """,
        subcommands: [
            Init.self, Register.self, Login.self, Status.self, Purchase.self, Fund.self,
            RequestPayment.self, Pay.self, Receive.self, Confirm.self,
            Sync.self, SendOnline.self, History.self, Backup.self, Restore.self, Settings.self,
        ]
    )
}
