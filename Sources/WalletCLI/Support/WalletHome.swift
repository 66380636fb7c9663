import Foundation
import OfflineNotes
import WalletAPI
import WalletCore
import WalletSync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line's own settings, next to the wallet database (mode 0600).
struct CLIConfig: Codable, Sendable {
    struct AutoRecharge: Codable, Sendable {
        var threshold: UInt64
        var target: UInt64
    }

    /// A purchase sent but not known to be finished: retried with the same key, never doubled.
    struct PendingPurchase: Codable, Sendable {
        var key: String
        var amount: UInt64
    }

    var server: String?
    var email: String?
    var accountId: Int64?
    var refreshToken: String?
    var autoRecharge: AutoRecharge?
    var pendingPurchase: PendingPurchase?
    var lastSync: Timestamp?
}

/// One user's wallet directory: the wallet (key + database) and the command line's settings.
struct WalletHome {
    let directory: String

    init(directory: String?) {
        if let directory {
            self.directory = directory
        } else {
            let env = ProcessInfo.processInfo.environment
            let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.local/share")
            self.directory = base + "/offline-wallet"
        }
    }

    var configPath: String { directory + "/config.json" }

    /// The key file's passphrase, from `OW_PASSPHRASE` (scripts) or nil.
    static var passphrase: String? { ProcessInfo.processInfo.environment["OW_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 } }

    func openWallet() throws -> Wallet {
        do {
            return try Wallet.open(directory: directory, passphrase: Self.passphrase)
        } catch .walletMissing {
            throw CLIError("wallet_missing", "No wallet in \(directory). Create one with: wallet init --server URL", exit: .refused)
        } catch .passphraseRequired {
            throw CLIError("passphrase_required", "The wallet key is encrypted: set OW_PASSPHRASE to its passphrase.", exit: .refused)
        }
    }

    func loadConfig() throws -> CLIConfig {
        guard let data = FileManager.default.contents(atPath: configPath) else { return CLIConfig() }
        do { return try JSONDecoder().decode(CLIConfig.self, from: data) } catch {
            throw CLIError("corrupt_config", "\(configPath) is not valid: \(error). Fix or remove it, then log in again.", exit: .failure)
        }
    }

    /// Writes the settings atomically (temporary file, then rename), readable by the owner only.
    func saveConfig(_ config: CLIConfig) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(config)
        let temporary = configPath + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("storage", "Cannot write \(temporary).", exit: .failure)
        }
        guard rename(temporary, configPath) == 0 else {
            throw CLIError("storage", "Cannot replace \(configPath) (errno \(errno)).", exit: .failure)
        }
    }

    /// Holds an exclusive lock on the directory while online work runs, so two commands never
    /// refresh the same login or send two purchases at once.
    func withLock<T>(_ body: () async throws -> T) async throws -> T {
        let path = directory + "/.lock"
        let fd = open(path, O_CREAT | O_RDWR, 0o600)
        guard fd >= 0 else { throw CLIError("storage", "Cannot open \(path) (errno \(errno)).", exit: .failure) }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            FileHandle.standardError.write(Data("waiting for another wallet command to finish…\n".utf8))
            guard flock(fd, LOCK_EX) == 0 else { throw CLIError("storage", "Cannot lock \(path).", exit: .failure) }
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}

extension WalletHome {
    /// Opens the wallet, takes the directory lock, resumes the login, then runs `body` with the
    /// session (every online command goes through here).
    func online<T>(_ body: (inout OnlineSession) async throws -> T) async throws -> T {
        let wallet = try openWallet()
        return try await withLock {
            var session = try await OnlineSession.open(self, wallet: wallet)
            return try await body(&session)
        }
    }
}

/// A logged-in connection to the issuer for one command.
struct OnlineSession {
    let client: IssuerClient
    let wallet: Wallet
    let home: WalletHome
    var config: CLIConfig

    /// Resumes the saved login (rotating its refresh token) and refreshes the issuer's keys.
    static func open(_ home: WalletHome, wallet: Wallet) async throws -> OnlineSession {
        var config = try home.loadConfig()
        guard let server = config.server, let url = URL(string: server) else {
            throw CLIError("no_server", "No issuer configured. Run: wallet init --server URL (or wallet login --server URL EMAIL).", exit: .login)
        }
        guard let refreshToken = config.refreshToken else {
            throw CLIError("not_logged_in", "Not logged in. Run: wallet login EMAIL", exit: .login)
        }
        let client = IssuerClient(serverURL: url)
        let tokens: Components.Schemas.Tokens
        do { tokens = try await client.resume(refreshToken: refreshToken) } catch let e as IssuerClientError where e.status == 401 {
            config.refreshToken = nil
            try home.saveConfig(config)
            throw CLIError("login_expired", "The login has expired or was revoked. Run: wallet login EMAIL", exit: .login)
        }
        config.refreshToken = tokens.refreshToken
        config.accountId = tokens.accountId
        try home.saveConfig(config)
        try await client.installTrust(into: wallet)
        return OnlineSession(client: client, wallet: wallet, home: home, config: config)
    }

    mutating func save() throws { try home.saveConfig(config) }

    /// Buys notes, remembering the idempotency key first so a crash or a retry never buys twice.
    mutating func purchase(_ amount: UInt64) async throws -> UInt64 {
        if let pending = config.pendingPurchase {
            // Finish the purchase left unfinished first (same key: charged at most once).
            _ = try await send(pending)
        }
        let pending = CLIConfig.PendingPurchase(key: UUID().uuidString, amount: amount)
        config.pendingPurchase = pending
        try save()
        return try await send(pending)
    }

    /// Sends one remembered purchase. It is forgotten once it succeeded or the issuer refused it
    /// (4xx: nothing was charged); after a transport failure or a 5xx the outcome is unknown, so
    /// it stays, and the next online command retries it with the same key.
    private mutating func send(_ pending: CLIConfig.PendingPurchase) async throws -> UInt64 {
        do {
            let bought = try await client.purchase(pending.amount, into: wallet, idempotencyKey: pending.key)
            config.pendingPurchase = nil
            try save()
            return bought
        } catch let error as IssuerClientError where (400..<500).contains(error.status) && error.status != 429 {
            config.pendingPurchase = nil
            try save()
            throw error
        }
    }

    /// Tops the offline balance up to the target when it fell below the threshold.
    /// Returns the amount bought (0 when nothing was due).
    mutating func applyAutoRecharge() async throws -> UInt64 {
        if let pending = config.pendingPurchase { return try await send(pending) }
        guard let rule = config.autoRecharge else { return 0 }
        let spendable = try wallet.balance().spendable
        guard spendable < rule.threshold, rule.target > spendable else { return 0 }
        let room = try wallet.limits().maxOfflineHolding
        let amount = min(rule.target - spendable, room > spendable ? room - spendable : 0)
        guard amount > 0 else { return 0 }
        return try await purchase(amount)
    }
}
