import CrashPoints
import Foundation
import OfflineNotes
import WalletCore
import WalletSync

/// Why an online flow could not start, in words that say what to do.
public enum WalletFlowError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No issuer URL is saved: choose a server (and log in).
    case noServer
    /// The saved server is not a URL.
    case invalidServer(String)
    /// No login is saved: log in again.
    case notLoggedIn
    /// The issuer refused the saved login (expired or revoked); it was forgotten: log in again.
    case loginExpired

    public var code: String {
        switch self {
        case .noServer: "no_server"
        case .invalidServer: "invalid_server"
        case .notLoggedIn: "not_logged_in"
        case .loginExpired: "login_expired"
        }
    }

    public var description: String {
        switch self {
        case .noServer: "No issuer is configured: choose a server, then log in."
        case .invalidServer(let text): "'\(text)' is not a URL (for example http://127.0.0.1:8080)."
        case .notLoggedIn: "Not logged in: log in again."
        case .loginExpired: "The login has expired or was revoked: log in again."
        }
    }
}

/// Makes the issuer client for a server URL (tests inject a transport through it).
public typealias IssuerClientFactory = @Sendable (URL) -> IssuerClient

/// A logged-in connection to the issuer for one wallet: resumed from the saved login (or made
/// by logging in), it buys notes, recharges and syncs. Everything it must remember between runs
/// goes to its stores at once, so a crash at any point loses nothing the issuer already did.
///
/// Callers serialize online work on one wallet (the command line holds its directory lock):
/// two sessions resuming the same login at once would each rotate the token, and one loses.
public final class WalletSession: Sendable {
    public let wallet: Wallet
    public let client: IssuerClient
    public let credentials: any CredentialStore
    public let flowState: any FlowStateStore
    /// The issuer's account this session is logged in to.
    public let accountId: Int64

    init(wallet: Wallet, client: IssuerClient, credentials: any CredentialStore, flowState: any FlowStateStore, accountId: Int64)
    {
        self.wallet = wallet
        self.client = client
        self.credentials = credentials
        self.flowState = flowState
        self.accountId = accountId
    }

    static func serverURL(_ text: String?) throws(WalletFlowError) -> URL {
        guard let text else { throw .noServer }
        guard let url = URL(string: text) else { throw .invalidServer(text) }
        return url
    }

    /// Resumes the saved login: trades the refresh token for a new one and saves that before
    /// anything else (the old one is dead now), then installs the issuer's current keys.
    /// A refused token is forgotten and reported as `WalletFlowError.loginExpired`.
    public static func resume(
        wallet: Wallet, credentials: any CredentialStore, flowState: any FlowStateStore,
        makeClient: IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) async throws -> WalletSession {
        var login = try credentials.loadLogin()
        let url = try serverURL(login.server)
        guard let refreshToken = login.refreshToken else { throw WalletFlowError.notLoggedIn }
        let client = makeClient(url)
        let tokens: LoginTokens
        do { tokens = try await client.resume(refreshToken: refreshToken) } catch let e as IssuerClientError where e.status == 401
        {
            login.refreshToken = nil
            try credentials.saveLogin(login)
            throw WalletFlowError.loginExpired
        }
        login.refreshToken = tokens.refreshToken
        login.accountId = tokens.accountId
        try credentials.saveLogin(login)
        try await client.installTrust(into: wallet)
        return WalletSession(
            wallet: wallet, client: client, credentials: credentials, flowState: flowState, accountId: tokens.accountId)
    }

    /// This login for another wallet: `restored`, restored from a backup under a new key
    /// (`Wallet.restore`). Installs the issuer's keys and registers the new key to the account
    /// (proving possession), so the next sync exchanges the restored notes for notes of the new
    /// key. The saved login is unchanged (one account, one refresh token).
    public func adopting(_ restored: Wallet) async throws -> WalletSession {
        try await client.installTrust(into: restored)
        try await client.registerKey(of: restored)
        return WalletSession(
            wallet: restored, client: client, credentials: credentials, flowState: flowState, accountId: accountId)
    }

    /// Logs in (registering the account first when `register`), registers the wallet's key to
    /// the account (proving possession; idempotent for the same account) and saves the login.
    /// `server` replaces the saved issuer; nil uses the saved one. Nothing is saved unless all
    /// of it succeeded.
    public static func logIn(
        wallet: Wallet, server: String?, email: String, password: String, register: Bool = false,
        credentials: any CredentialStore, flowState: any FlowStateStore,
        makeClient: IssuerClientFactory = { IssuerClient(serverURL: $0) }, onRegistered: @Sendable () -> Void = {}
    ) async throws -> (session: WalletSession, account: AccountSummary) {
        var login = try credentials.loadLogin()
        if let server { login.server = server }
        let client = makeClient(try serverURL(login.server))
        try await client.installTrust(into: wallet)
        if register {
            try await client.register(email: email, password: password)
            onRegistered()
        }
        let tokens = try await client.login(email: email, password: password)
        try await client.registerKey(of: wallet)
        login.email = email
        login.accountId = tokens.accountId
        login.refreshToken = tokens.refreshToken
        try credentials.saveLogin(login)
        let account = try await client.account()
        let session = WalletSession(
            wallet: wallet, client: client, credentials: credentials, flowState: flowState, accountId: tokens.accountId)
        return (session, account)
    }

    /// What a logout did.
    public struct Logout: Sendable, Equatable {
        /// A login was saved before.
        public var wasLoggedIn: Bool
        /// The issuer revoked it (or no longer knew it).
        public var revoked: Bool
        /// Why the issuer could not be told (offline, no server, its refusal); the login then
        /// stays valid at the issuer until it expires.
        public var warning: String?
        public var email: String?
        /// The issuer could not be reached (no answer at all), as opposed to refusing.
        public var issuerUnreachable: Bool

        public init(wasLoggedIn: Bool, revoked: Bool, warning: String?, email: String?, issuerUnreachable: Bool = false) {
            self.wasLoggedIn = wasLoggedIn
            self.revoked = revoked
            self.warning = warning
            self.email = email
            self.issuerUnreachable = issuerUnreachable
        }
    }

    /// Revokes the saved login at the issuer, then forgets it — also when the issuer cannot be
    /// reached (forgetting can always be done, revoking only now).
    public static func logOut(
        credentials: any CredentialStore, makeClient: IssuerClientFactory = { IssuerClient(serverURL: $0) }
    ) async throws -> Logout {
        let login = try credentials.loadLogin()
        guard let token = login.refreshToken else {
            return Logout(wasLoggedIn: false, revoked: false, warning: nil, email: login.email)
        }
        var revoked = false
        var unreachable = false
        var warning: String?
        if let server = login.server, let url = URL(string: server) {
            do {
                try await makeClient(url).logout(refreshToken: token)
                revoked = true
            } catch let error as IssuerClientError where error.isUnreachable {
                unreachable = true
                warning = "the issuer at \(server) could not be reached"
            } catch let error as IssuerClientError {
                warning = error.description
            } catch {
                warning = "\(error)"
            }
        } else {
            warning = "no issuer is configured"
        }
        try credentials.clearLogin()
        return Logout(wasLoggedIn: true, revoked: revoked, warning: warning, email: login.email, issuerUnreachable: unreachable)
    }

    /// The issuer's view of the account.
    public func account() async throws -> AccountSummary { try await client.account() }

    /// Pays another account online from the settled balance (no notes move) and records the
    /// transfer in the wallet's history at once (the next sync ties it to its journal entry).
    /// Returns the account after the transfer.
    public func sendOnline(to email: String, amount: UInt64) async throws -> AccountSummary {
        let account = try await client.sendOnline(to: email, amount: amount)
        _ = try wallet.recordOnlineTransfer(to: email, amount: amount)
        return account
    }

    // MARK: Purchase

    /// Buys `amount` of notes into the wallet. The idempotency key is saved BEFORE the request
    /// goes out, so a crash or a lost answer is retried with the same key and charged at most
    /// once. A purchase left unfinished by an earlier run is finished first.
    /// Returns the value deposited by this purchase.
    public func purchase(_ amount: UInt64) async throws -> UInt64 {
        if let pending = try flowState.loadFlowState().pendingPurchase {
            // Same key: charged at most once.
            _ = try await send(pending)
        }
        let pending = PendingPurchase(key: UUID().uuidString, amount: amount)
        try flowState.updateFlowState { $0.pendingPurchase = pending }
        CrashPoints.reach(.walletPurchaseKeySaved)
        return try await send(pending)
    }

    /// Finishes a purchase left unfinished by an earlier run, if any; returns what it deposited.
    @discardableResult
    public func finishPendingPurchase() async throws -> UInt64 {
        guard let pending = try flowState.loadFlowState().pendingPurchase else { return 0 }
        return try await send(pending)
    }

    /// Sends one remembered purchase. It is forgotten once it succeeded or the issuer refused it
    /// (4xx other than 429: nothing was charged); after a transport failure, a 429 or a 5xx the
    /// outcome is unknown, so it stays and the next call retries it with the same key.
    private func send(_ pending: PendingPurchase) async throws -> UInt64 {
        do {
            let bought = try await client.purchase(pending.amount, into: wallet, idempotencyKey: pending.key)
            CrashPoints.reach(.walletPurchaseDeposited)
            try forget(pending)
            return bought
        } catch let error as IssuerClientError where (400..<500).contains(error.status) && error.status != 429 {
            try forget(pending)
            throw error
        }
    }

    private func forget(_ pending: PendingPurchase) throws {
        try flowState.updateFlowState { if $0.pendingPurchase == pending { $0.pendingPurchase = nil } }
    }

    // MARK: Auto-recharge

    /// What an auto-recharge did.
    public enum Recharge: Sendable, Equatable {
        /// Bought this much (a pending purchase finished counts too).
        case bought(UInt64)
        /// No rule, spendable not below the threshold, or no risk budget left.
        case nothingDue
        /// The issuer refused the purchase (e.g. the account cannot afford it); nothing was bought.
        case skipped(reason: String)

        /// The value bought (0 unless `.bought`).
        public var amount: UInt64 {
            if case .bought(let value) = self { value } else { 0 }
        }

        /// The warning to show, if any.
        public var warning: String? {
            if case .skipped(let reason) = self { "Auto-recharge skipped: \(reason)" } else { nil }
        }
    }

    /// Tops the offline spendable balance up to the rule's target when it fell below the
    /// threshold, never past what the wallet may still hold offline (`Balance.riskBudgetLeft`).
    /// A purchase left unfinished is finished instead (one purchase at a time). A refusal by the
    /// issuer is a `.skipped` result, not an error; transport failures are thrown.
    public func applyAutoRecharge() async throws -> Recharge {
        do {
            let state = try flowState.loadFlowState()
            if let pending = state.pendingPurchase {
                let bought = try await send(pending)
                return bought > 0 ? .bought(bought) : .nothingDue
            }
            guard let rule = state.autoRecharge else { return .nothingDue }
            let balance = try wallet.balance()
            let spendable = balance.spendable
            guard spendable < rule.threshold, rule.target > spendable else { return .nothingDue }
            let amount = min(rule.target - spendable, balance.riskBudgetLeft)
            guard amount > 0 else { return .nothingDue }
            return .bought(try await purchase(amount))
        } catch let e as IssuerClientError where e.status >= 400 && e.status < 500 {
            return .skipped(reason: e.description)
        }
    }
}
