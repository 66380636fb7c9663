import Foundation
import OfflineNotes
import Synchronization
import WalletCore
import WalletFlows
import WalletSync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line's settings (`config.json`): the login and the flow state, in the format
/// `WalletFlows.ConfigFileStore` reads and writes.
typealias CLIConfig = WalletSettings

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
    ///
    /// A key file without a usable database is refused before anything is touched: SQLite
    /// would take an empty or missing file for a new, empty wallet, and the notes the key
    /// owned would vanish from view with no hint that a backup can bring them back.
    func openWallet() throws -> Wallet {
        try refuseLostDatabase()
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw CLIError(
                "wallet_missing", "No wallet in \(directory). Create one with: wallet init --server URL", exit: .refused)
        }
        try DirectoryLock.acquire(directory)
        do {
            let wallet = try Wallet.open(directory: directory, passphrase: Self.passphrase)
            LoginSeal.adopt(wallet, directory: directory)
            return wallet
        } catch .walletMissing {
            throw CLIError(
                "wallet_missing", "No wallet in \(directory). Create one with: wallet init --server URL", exit: .refused)
        } catch .passphraseRequired {
            throw CLIError(
                "passphrase_required", "The wallet key is encrypted: set OW_PASSPHRASE to its passphrase.", exit: .refused)
        } catch {
            // SQLite's SQLITE_NOTADB and SQLITE_CORRUPT: a damaged page, another program's file.
            if case .storage(let why) = error, why.contains("not a database") || why.contains("malformed") {
                throw lostDatabase("cannot be read as a wallet database (\(why))")
            }
            throw error
        }
    }

    var keyPath: String { directory + "/" + Wallet.keyFileName }
    var databasePath: String { directory + "/" + Wallet.databaseFileName }

    /// Throws `wallet_database_lost` when the key file exists but the database is missing,
    /// empty, or not an SQLite database: that directory held a wallet whose notes are gone
    /// from it, and nothing may start over in it. Reads only; changes nothing.
    func refuseLostDatabase() throws {
        let files = FileManager.default
        guard files.fileExists(atPath: keyPath) else { return }
        guard files.fileExists(atPath: databasePath) else { throw lostDatabase("is missing") }
        guard let handle = FileHandle(forReadingAtPath: databasePath) else { throw lostDatabase("cannot be read") }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { throw lostDatabase("is empty (0 bytes)") }
        if header != Data("SQLite format 3\0".utf8) { throw lostDatabase("is not a wallet database") }
    }

    /// The refusal for a key without its database: what happened, that nothing changed, and
    /// how to get the notes back.
    func lostDatabase(_ what: String) -> CLIError {
        CLIError(
            "wallet_database_lost",
            """
            The wallet in \(directory) has its key (\(Wallet.keyFileName)) but its database \(databasePath) \(what): \
            the notes and history it held are not there. It is not treated as a new wallet, and nothing was changed. \
            If you have a copy of \(Wallet.databaseFileName), put it back. Otherwise restore your latest backup into a new \
            directory: wallet restore BACKUP-FILE --wallet NEW-DIR (the issuer exchanges the restored notes on the next \
            wallet sync). If this wallet never held money, move \(directory) away and run wallet init again.
            """,
            exit: .input)
    }

    /// For `init` and `restore`: makes the directory (mode 0700) and takes its lock before a
    /// wallet is created in it. A directory that already exists is made 0700 too (the mode only
    /// applies to what `createDirectory` creates), so a wallet made in a 0755 or 0777 folder is
    /// not readable or replaceable by other users.
    func prepareNew() throws {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            throw CLIError(
                "storage", "Cannot create \(directory) as a private folder (mode 0700): \(error.localizedDescription)",
                exit: .failure)
        }
        try DirectoryLock.acquire(directory)
    }

    /// The settings file as the flows' credential and flow-state store, sealing the login under
    /// the wallet this process opened.
    var store: ConfigFileStore {
        ConfigFileStore(path: configPath, seal: LoginSeal.seal) { path in
            FileHandle.standardError.write(
                Data(
                    "The saved login in \(path) does not open with this wallet's key; it is dropped. Log in again: wallet login EMAIL\n"
                        .utf8))
        }
    }

    /// Reads the settings; a sealed login token is opened with the wallet this process opened.
    func loadConfig() throws -> CLIConfig { try store.read() }

    /// Writes the settings atomically (temporary file, then rename), readable by the owner only.
    func saveConfig(_ config: CLIConfig) throws { try store.write(config) }

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
    func online<T>(_ body: (WalletSession) async throws -> T) async throws -> T {
        let wallet = try openWallet()
        return try await withLock {
            try await body(try await resume(wallet))
        }
    }

    /// Resumes the saved login (rotating its refresh token) and refreshes the issuer's keys.
    func resume(_ wallet: Wallet) async throws -> WalletSession {
        let store = self.store
        return try await WalletSession.resume(
            wallet: wallet, credentials: store, flowState: store, makeClient: try clientFactory())
    }
}
