import ArgumentParser
import Foundation
import WalletCore

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write an encrypted backup of the whole wallet (passphrase from OW_BACKUP_PASSPHRASE or asked).")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Backup file to write.") var file: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let wallet = try common.home.openWallet()
            let passphrase = try secret(env: "OW_BACKUP_PASSPHRASE", prompt: "Backup passphrase: ")
            out.note("Encrypting (scrypt makes this take a moment)…")
            let bytes = try wallet.exportBackup(passphrase: passphrase)
            guard FileManager.default.createFile(atPath: file, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("storage", "Cannot write \(file).", exit: .failure)
            }
            out.result(["file": file, "bytes": bytes.count], human: "Backup written to \(file) (\(bytes.count) bytes, encrypted).")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup into a new wallet directory. Restored notes stay unspendable until wallet sync has checked them online.")
    @OptionGroup var common: CommonOptions
    @Argument(help: "Backup file.") var file: String
    @Option(help: "Issuer URL for the restored wallet (then: wallet login EMAIL).") var server: String?

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError("unreadable_file", "Cannot read \(file).", exit: .input)
            }
            let passphrase = try secret(env: "OW_BACKUP_PASSPHRASE", prompt: "Backup passphrase: ")
            out.note("Decrypting…")
            let wallet = try Wallet.restore(Array(data), passphrase: passphrase, into: home.directory, keyPassphrase: WalletHome.passphrase)
            var config = try home.loadConfig()
            if let server { config.server = server }
            try home.saveConfig(config)
            let balance = try wallet.balance()
            let currency = try wallet.limits().currency
            out.result(
                ["directory": home.directory, "needsOnlineCheck": balance.needsOnlineCheck, "spendable": balance.spendable],
                human: """
                    Restored into \(home.directory).
                    \(MoneyText.format(balance.needsOnlineCheck, currency)) of notes wait for an online check: log in and run wallet sync before spending them.
                    """)
        }
    }
}
