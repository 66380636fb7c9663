import Foundation
import OfflineNotes
import Synchronization
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
    /// The issuer's refresh token, in memory always plain; on disk plain only when the key file
    /// is not encrypted (see `LoginSeal`).
    var refreshToken: String?
    /// The refresh token sealed under the wallet key (`LoginSeal`), when the key file is encrypted.
    var sealedRefreshToken: String?
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

    /// Takes the directory lock (held until the process exits), then opens the wallet.
    func openWallet() throws -> Wallet {
        guard FileManager.default.fileExists(atPath: directory + "/" + Wallet.databaseFileName) else {
            throw CLIError("wallet_missing", "No wallet in \(directory). Create one with: wallet init --server URL", exit: .refused)
        }
        try DirectoryLock.acquire(directory)
        do {
            let wallet = try Wallet.open(directory: directory, passphrase: Self.passphrase)
            LoginSeal.adopt(wallet, directory: directory)
            return wallet
        } catch .walletMissing {
            throw CLIError("wallet_missing", "No wallet in \(directory). Create one with: wallet init --server URL", exit: .refused)
        } catch .passphraseRequired {
            throw CLIError("passphrase_required", "The wallet key is encrypted: set OW_PASSPHRASE to its passphrase.", exit: .refused)
        }
    }

    /// Reads the settings; a sealed login token is opened with the wallet this process opened.
    /// For `init` and `restore`: makes the directory (mode 0700) and takes its lock before a
    /// wallet is created in it.
    func prepareNew() throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError("storage", "Cannot create \(directory): \(error.localizedDescription)", exit: .failure)
        }
        try DirectoryLock.acquire(directory)
    }

    func loadConfig() throws -> CLIConfig {
        guard let data = FileManager.default.contents(atPath: configPath) else { return CLIConfig() }
        var config: CLIConfig
        do { config = try JSONDecoder().decode(CLIConfig.self, from: data) } catch {
            throw CLIError("corrupt_config", "\(configPath) is not valid: \(error). Fix or remove it, then log in again.", exit: .input)
        }
        if let sealed = config.sealedRefreshToken, let context = LoginSeal.context {
            if let token = LoginSeal.open(sealed, context) {
                config.refreshToken = token
            } else {
                FileHandle.standardError.write(
                    Data("The saved login in \(configPath) does not open with this wallet's key; it is dropped. Log in again: wallet login EMAIL\n".utf8))
                config.sealedRefreshToken = nil
            }
        }
        return config
    }

    /// Writes the settings atomically (temporary file, then rename), readable by the owner only.
    func saveConfig(_ config: CLIConfig) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var stored = config
        if let context = LoginSeal.context {
            // The wallet is open: its key decides how the token is stored (and a nil token is
            // forgotten in both forms).
            if let token = config.refreshToken, context.sealsNewTokens {
                stored.sealedRefreshToken = try LoginSeal.seal(token, context)
                stored.refreshToken = nil
            } else {
                stored.sealedRefreshToken = nil
            }
        } else if config.refreshToken != nil {
            stored.sealedRefreshToken = nil
        }
        let data = try encoder.encode(stored)
        let temporary = configPath + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("storage", "Cannot write \(temporary).", exit: .failure)
        }
        guard rename(temporary, configPath) == 0 else {
            throw CLIError("storage", "Cannot replace \(configPath) (errno \(errno)).", exit: .failure)
        }
    }

    /// Makes sure this process holds the directory lock, then runs `body`; a lock taken here
    /// is released afterwards, one already held (by `openWallet`) stays. Online work runs
    /// under it, so two commands never refresh the same login or send two purchases at once.
    func withLock<T>(_ body: () async throws -> T) async throws -> T {
        let acquired = try DirectoryLock.acquire(directory)
        defer { if acquired { DirectoryLock.release(directory) } }
        return try await body()
    }

    /// `withLock` for synchronous work (the nearby listener's answer to a payment).
    func locked<T>(_ body: () throws -> T) throws -> T {
        let acquired = try DirectoryLock.acquire(directory)
        defer { if acquired { DirectoryLock.release(directory) } }
        return try body()
    }

    /// Lets other commands use the wallet while this one waits on the network for a long time
    /// (a nearby session: up to minutes). `body` must not touch the database; the lock is taken
    /// again afterwards, also when `body` throws.
    func unlocked<T>(_ body: () async throws -> T) async throws -> T {
        let held = DirectoryLock.release(directory)
        do {
            let value = try await body()
            if held { _ = try DirectoryLock.acquire(directory) }
            return value
        } catch {
            if held { _ = try DirectoryLock.acquire(directory) }
            throw error
        }
    }
}

/// The wallet directory's lock: an exclusive `flock` on `DIR/.lock`, taken before the database
/// is opened and held until the process exits (or `release`).
///
/// Why every command, readers too: opening the database runs GRDB's migration check and WAL
/// setup, and the wallet's SQLite connection fails at once with "database is locked" when
/// another process writes at that moment (1 in 20 concurrent `status`, 2 in 12 `sync`). One
/// exclusive lock per command is simple and correct; commands are short, and the two that wait
/// on the network for long (nearby pay and listen) let go of it while they wait. A shared lock
/// for readers would buy little: `status` also rotates the login token, which is a write.
enum DirectoryLock {
    private static let held = Mutex<[String: Int32]>([:])

    /// Takes the lock for `directory` unless this process holds it; waits (saying so on stderr)
    /// while another command has it. Returns true when this call took it.
    @discardableResult
    static func acquire(_ directory: String) throws -> Bool {
        try held.withLock { held -> Bool in
            if held[directory] != nil { return false }
            let path = directory + "/.lock"
            let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw CLIError("storage", "Cannot open \(path): \(String(cString: strerror(errno))).", exit: .failure)
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                FileHandle.standardError.write(Data("waiting for another wallet command on \(directory) to finish…\n".utf8))
                while flock(fd, LOCK_EX) != 0 {
                    guard errno == EINTR else {
                        close(fd)
                        throw CLIError("storage", "Cannot lock \(path): \(String(cString: strerror(errno))).", exit: .failure)
                    }
                }
            }
            held[directory] = fd
            return true
        }
    }

    /// Releases the lock if this process holds it; returns whether it did.
    @discardableResult
    static func release(_ directory: String) -> Bool {
        held.withLock { held in
            guard let fd = held.removeValue(forKey: directory) else { return false }
            flock(fd, LOCK_UN)
            close(fd)
            return true
        }
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
        let balance = try wallet.balance()
        let spendable = balance.spendable
        guard spendable < rule.threshold, rule.target > spendable else { return 0 }
        // Never buy past what the wallet may hold offline (the rule `receive` applies).
        let amount = min(rule.target - spendable, balance.riskBudgetLeft)
        guard amount > 0 else { return 0 }
        return try await purchase(amount)
    }
}
