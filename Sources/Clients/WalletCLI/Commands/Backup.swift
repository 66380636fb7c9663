import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore
import WalletFlows

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Write an encrypted backup of the whole wallet (passphrase from OW_BACKUP_PASSPHRASE, or asked twice); checked by decrypting it before it is kept.",
        discussion: """
            Weak passphrases are refused with the reason: fewer than \(PassphrasePolicy.minimumLength) characters, fewer than \(PassphrasePolicy.minimumDistinct) different characters, \
            one kind of character only (under \(PassphrasePolicy.mixedBelow) characters), a common password or keyboard run, the account email or password.
            """)
    @OptionGroup var common: CommonOptions
    @Argument(help: "Backup file to write (replaced only once the new backup has been checked).") var file: String

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            let config = try home.loadConfig()
            let passphrase = try Self.passphrase(email: config.email)
            // The backup carries the issuer's address and trust, so a restore can log in as pasted.
            if let server = config.server {
                let contact = IssuerContact(url: server, serverPin: config.serverPin, serverCA: config.serverCA)
                if try wallet.issuerContact() != contact { try wallet.setIssuerContact(contact) }
            }
            out.note("Encrypting (scrypt makes this take a moment)…")
            let bytes = try wallet.exportBackup(passphrase: passphrase)
            let temporary = try Self.writeTemporary(bytes, next: file)
            do {
                out.note("Checking the backup: decrypting it and comparing its notes…")
                let notes = try Self.check(temporary, passphrase: passphrase, against: wallet, scratch: home.directory)
                guard rename(temporary, file) == 0 else {
                    throw CLIError(
                        "storage", "Cannot move the backup into place at \(file): \(String(cString: strerror(errno))).",
                        exit: .failure)
                }
                out.result(
                    ["file": file, "bytes": bytes.count, "verified": true, "notes": notes],
                    human:
                        "Backup written to \(file) (\(bytes.count) bytes, encrypted) and checked: it decrypts and holds all \(notes) note record(s)."
                )
            } catch {
                unlink(temporary)
                throw error
            }
        }
    }

    /// OW_BACKUP_PASSPHRASE as given, or asked twice on the terminal; refused when weak.
    static func passphrase(email: String?) throws -> String {
        let accountPassword = ProcessInfo.processInfo.environment["OW_PASSWORD"]
        let passphrase: String
        if let given = ProcessInfo.processInfo.environment["OW_BACKUP_PASSPHRASE"], !given.isEmpty {
            passphrase = given
        } else {
            passphrase = try secret(env: "OW_BACKUP_PASSPHRASE", prompt: "Backup passphrase: ")
            if let reason = PassphrasePolicy.weakness(passphrase, email: email, accountPassword: accountPassword) {
                throw CLIError(
                    "weak_passphrase", "That backup passphrase is too weak: \(reason). Nothing was written.", exit: .usage)
            }
            let again = try secret(env: "OW_BACKUP_PASSPHRASE", prompt: "The same passphrase again: ")
            guard again == passphrase else {
                throw CLIError(
                    "passphrase_mismatch", "The two passphrases differ. Nothing was written; run wallet backup again.",
                    exit: .usage)
            }
        }
        if let reason = PassphrasePolicy.weakness(passphrase, email: email, accountPassword: accountPassword) {
            throw CLIError("weak_passphrase", "OW_BACKUP_PASSPHRASE is too weak: \(reason). Nothing was written.", exit: .usage)
        }
        return passphrase
    }

    /// Writes the backup next to its final name (same file system, so the rename is atomic),
    /// mode 0600, synced to disk.
    static func writeTemporary(_ bytes: [UInt8], next file: String) throws -> String {
        let temporary = file + ".partial-\(UUID().uuidString.prefix(8))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CLIError(
                "storage", "Cannot write the backup next to \(file): \(String(cString: strerror(errno))).", exit: .failure)
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CLIError("storage", "Cannot write the backup to \(temporary): \(reason).", exit: .failure)
        }
        return temporary
    }

    /// Reads the written file back from disk and restores it into a scratch directory inside
    /// the wallet directory (its key file sealed with a random passphrase, removed at once):
    /// the backup must decrypt, open as a wallet and list exactly this wallet's note records
    /// (every state, with its status). Returns how many.
    static func check(_ path: String, passphrase: String, against wallet: Wallet, scratch directory: String) throws -> Int {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(
                "backup_unverified", "The backup could not be read back from \(path). Nothing was kept.", exit: .failure)
        }
        let scratch = directory + "/.backup-check-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let expected = try wallet.states().map { "\($0.ref.hex) \($0.status.rawValue)" }.sorted()
        let found: [String]
        do {
            let copy = try Wallet.restore(
                Array(data), passphrase: passphrase, into: scratch, keyPassphrase: UUID().uuidString, keyCost: .testing)
            found = try copy.states().map { "\($0.ref.hex) \($0.status.rawValue)" }.sorted()
        } catch {
            throw CLIError(
                "backup_unverified", "The backup just written does not restore (\(error)). Nothing was kept; try again.",
                exit: .failure)
        }
        guard found == expected else {
            throw CLIError(
                "backup_unverified",
                "The backup just written does not hold this wallet's notes (\(found.count) of \(expected.count) records). Nothing was kept; try again.",
                exit: .failure)
        }
        return expected.count
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Restore a backup into a new wallet directory, under a new key. Restored notes are exchanged online by the next wallet sync before any can be spent."
    )
    @OptionGroup var common: CommonOptions
    @Argument(help: "Backup file.") var file: String
    @Option(help: "Issuer URL for the restored wallet (default: the one the backup carries).") var server: String?

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError("unreadable_file", "Cannot read \(file).", exit: .input)
            }
            // Restoring over a key whose database is gone would replace what is left of it.
            try home.refuseLostDatabase()
            let passphrase = try secret(env: "OW_BACKUP_PASSPHRASE", prompt: "Backup passphrase: ")
            try home.prepareNew()
            out.note("Decrypting…")
            let wallet = try Wallet.restore(
                Array(data), passphrase: passphrase, into: home.directory, keyPassphrase: WalletHome.passphrase)
            LoginSeal.adopt(wallet, directory: home.directory)
            var config = try home.loadConfig()
            let carried = try wallet.issuerContact()
            if let carried, server == nil || server == carried.url {
                config.server = carried.url
                config.serverPin = carried.serverPin
                config.serverCA = carried.serverCA
            }
            if let server { config.server = server }
            try home.saveConfig(config)
            let flag = common.walletArgument
            let next = [
                config.server == nil ? "wallet login\(flag) --server URL EMAIL" : "wallet login\(flag) EMAIL",
                "wallet sync\(flag)",
            ]
            // A wallet that never met an issuer has no keyset, so no currency and no notes.
            let configured = (try? wallet.limits()) != nil
            let needsOnlineCheck = configured ? try wallet.balance().needsOnlineCheck : 0
            let spendable = configured ? try wallet.balance().spendable : 0
            let held = (try? wallet.limits().currency).map { MoneyText.format(needsOnlineCheck, $0) } ?? "None"
            let origin = config.server.map { "issuer \($0)" + (carried != nil && server == nil ? ", from the backup" : "") }
            out.result(
                [
                    "directory": home.directory, "needsOnlineCheck": needsOnlineCheck, "spendable": spendable,
                    "walletKey": wallet.publicKey.hex, "oldWalletKey": (try wallet.restoredFromKey()?.hex) ?? NSNull(),
                    "server": config.server ?? NSNull(), "next": next,
                ],
                human: """
                    Restored into \(home.directory) with a NEW wallet key (\(wallet.publicKey.keyID)).
                    \(held) of restored notes cannot be spent offline: they belong to the old key, which
                    the old device may still use. Log in and sync: the issuer exchanges them for fresh notes of this
                    wallet's key. Notes the old device already spent are retired.
                    Next (\(origin ?? "this backup does not name its issuer: put its URL in place of URL"); EMAIL is your account):
                      \(next.joined(separator: "\n  "))
                    The old device: stop using it, and delete its wallet if you still have it. A payment it makes
                    from a restored note that surfaces later is paid from your account (a restore conflict, not
                    fraud). If that happens again after a second restore, it is treated as fraud and the account
                    is frozen.
                    """)
        }
    }
}
