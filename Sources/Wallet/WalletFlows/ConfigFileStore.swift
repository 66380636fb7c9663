import Foundation
import OfflineNotes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What went wrong reading or writing a flow store.
public enum FlowStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file exists but is not valid; `detail` says why.
    case corrupt(path: String, detail: String)
    /// The file could not be written.
    case cannotWrite(path: String, detail: String)
    /// The login token could not be sealed.
    case cannotSeal

    public var code: String {
        switch self {
        case .corrupt: "corrupt_config"
        case .cannotWrite, .cannotSeal: "storage"
        }
    }

    public var description: String {
        switch self {
        case .corrupt(let path, let detail): "\(path) is not valid: \(detail). Fix or remove it, then log in again."
        case .cannotWrite(let path, let detail): "Cannot write \(path): \(detail)."
        case .cannotSeal: "Cannot seal the login token."
        }
    }
}

/// The settings file next to a wallet (`config.json`): the login and the flow state in one JSON
/// object — the command line's format since the first release, read and written unchanged:
/// `server`, `email`, `accountId`, `refreshToken` or `sealedRefreshToken`, `autoRecharge`
/// {threshold, target}, `pendingPurchase` {key, amount}, `lastSync`, `pendingWithdrawal` {key, amount, to},
/// `serverPin` or `serverCA` (how an https issuer is trusted).
public struct WalletSettings: Codable, Sendable, Equatable {
    public var server: String?
    public var email: String?
    public var accountId: Int64?
    /// The issuer's refresh token, in memory always plain; on disk plain only when the key file
    /// is not encrypted (see `LoginTokenSeal`).
    public var refreshToken: String?
    /// The refresh token sealed under the wallet key (`LoginTokenSeal`), when the key file is encrypted.
    public var sealedRefreshToken: String?
    public var autoRecharge: AutoRechargeRule?
    public var pendingPurchase: PendingPurchase?
    public var lastSync: Timestamp?
    public var pendingWithdrawal: PendingWithdrawal?
    /// How the command line trusts an https server (README, "Pinning the server"): a pinned
    /// public key, `sha256/BASE64` of its SubjectPublicKeyInfo, kept from `init` so every later
    /// command pins too; or the PEM of a private certificate authority. Neither: system roots.
    public var serverPin: String?
    public var serverCA: String?

    public init() {}

    /// The login part.
    public var login: StoredLogin {
        get { StoredLogin(server: server, email: email, accountId: accountId, refreshToken: refreshToken) }
        set {
            // A login forgotten here is forgotten in both forms (a sealed token this process
            // could not open stays: only the wallet that sealed it may decide).
            if newValue.refreshToken == nil, refreshToken != nil { sealedRefreshToken = nil }
            server = newValue.server
            email = newValue.email
            accountId = newValue.accountId
            refreshToken = newValue.refreshToken
        }
    }

    /// The flow-state part.
    public var flowState: FlowState {
        get {
            FlowState(
                pendingPurchase: pendingPurchase, autoRecharge: autoRecharge, lastSync: lastSync,
                pendingWithdrawal: pendingWithdrawal)
        }
        set {
            pendingPurchase = newValue.pendingPurchase
            autoRecharge = newValue.autoRecharge
            lastSync = newValue.lastSync
            pendingWithdrawal = newValue.pendingWithdrawal
        }
    }
}

/// `config.json` as a `CredentialStore` and `FlowStateStore`: mode 0600, written atomically
/// (temporary file, then rename), the refresh token sealed under the wallet key when the key
/// file is encrypted. Every save reads the file, changes its part and writes it whole, so the
/// two stores never undo each other's writes.
public struct ConfigFileStore: CredentialStore, FlowStateStore {
    public let path: String
    /// The wallet's token seal; nil when no wallet is open (then a sealed token is kept as is
    /// and cannot be read) or the key cannot seal.
    public let seal: LoginTokenSeal?
    /// Told when a sealed token does not open with this wallet's key and is dropped.
    let onDroppedLogin: @Sendable (String) -> Void

    public init(path: String, seal: LoginTokenSeal?, onDroppedLogin: @escaping @Sendable (_ path: String) -> Void = { _ in }) {
        self.path = path
        self.seal = seal
        self.onDroppedLogin = onDroppedLogin
    }

    /// The whole file (an empty one when it does not exist yet); a sealed token is opened.
    public func read() throws(FlowStoreError) -> WalletSettings {
        guard let data = FileManager.default.contents(atPath: path) else { return WalletSettings() }
        var settings: WalletSettings
        do { settings = try JSONDecoder().decode(WalletSettings.self, from: data) } catch {
            throw .corrupt(path: path, detail: "\(error)")
        }
        if let sealed = settings.sealedRefreshToken, let seal {
            if let token = seal.open(sealed) {
                settings.refreshToken = token
            } else {
                onDroppedLogin(path)
                settings.sealedRefreshToken = nil
            }
        }
        return settings
    }

    /// Writes the whole file atomically, readable by the owner only.
    public func write(_ settings: WalletSettings) throws(FlowStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var stored = settings
        if let seal {
            // The wallet is open: its key decides how the token is stored (and a nil token is
            // forgotten in both forms).
            if let token = settings.refreshToken, seal.sealsNewTokens {
                stored.sealedRefreshToken = try seal.seal(token)
                stored.refreshToken = nil
            } else {
                stored.sealedRefreshToken = nil
            }
        } else if settings.refreshToken != nil {
            stored.sealedRefreshToken = nil
        }
        let data: Data
        do { data = try encoder.encode(stored) } catch { throw .cannotWrite(path: path, detail: "\(error)") }
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw .cannotWrite(path: temporary, detail: "the file could not be created")
        }
        guard rename(temporary, path) == 0 else {
            throw .cannotWrite(path: path, detail: "rename failed (errno \(errno))")
        }
    }

    public func loadLogin() throws -> StoredLogin { try read().login }

    public func saveLogin(_ login: StoredLogin) throws {
        var settings = try read()
        settings.login = login
        try write(settings)
    }

    public func loadFlowState() throws -> FlowState { try read().flowState }

    public func saveFlowState(_ state: FlowState) throws {
        var settings = try read()
        settings.flowState = state
        try write(settings)
    }
}
