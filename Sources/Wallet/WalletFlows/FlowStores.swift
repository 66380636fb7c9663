import Foundation
import OfflineNotes

/// The saved login: which issuer, which account, and the rotating refresh token that resumes it.
///
/// `server` and `email` outlive a logout (a login screen prefills them); `accountId` and
/// `refreshToken` are the login itself.
public struct StoredLogin: Sendable, Equatable {
    /// The issuer's URL as the user gave it.
    public var server: String?
    public var email: String?
    public var accountId: Int64?
    /// The newest refresh token; the issuer rotates it on every resume.
    public var refreshToken: String?

    public init(server: String? = nil, email: String? = nil, accountId: Int64? = nil, refreshToken: String? = nil) {
        self.server = server
        self.email = email
        self.accountId = accountId
        self.refreshToken = refreshToken
    }
}

/// A purchase sent but not known to be finished: retried with the same idempotency key, so the
/// issuer charges it at most once.
public struct PendingPurchase: Codable, Sendable, Equatable {
    public var key: String
    public var amount: UInt64

    public init(key: String, amount: UInt64) {
        self.key = key
        self.amount = amount
    }
}

/// Top the offline spendable balance up to `target` when it falls below `threshold`.
public struct AutoRechargeRule: Codable, Sendable, Equatable {
    public var threshold: UInt64
    public var target: UInt64

    public init(threshold: UInt64, target: UInt64) {
        self.threshold = threshold
        self.target = target
    }
}

/// Why an auto-recharge rule is not accepted.
public enum AutoRechargeRuleError: Error, Sendable, Equatable {
    /// The target must be above the threshold (else nothing would ever be bought).
    case targetNotAboveThreshold
    /// The target is above what the wallet may hold offline (the limit, minor units).
    case aboveHoldingLimit(UInt64)
}

extension AutoRechargeRule {
    /// A rule the settings screen may save: target above threshold and within the issuer's
    /// offline holding limit (`maxOfflineHolding`, nil while the wallet has no limits yet).
    public init(validatingThreshold threshold: UInt64, target: UInt64, maxOfflineHolding: UInt64?) throws(AutoRechargeRuleError) {
        guard target > threshold else { throw .targetNotAboveThreshold }
        if let limit = maxOfflineHolding, target > limit { throw .aboveHoldingLimit(limit) }
        self.init(threshold: threshold, target: target)
    }
}

/// The small state the online flows keep between runs (none of it secret).
public struct FlowState: Sendable, Equatable {
    public var pendingPurchase: PendingPurchase?
    public var autoRecharge: AutoRechargeRule?
    /// When the last sync finished (issuer-independent wall clock, seconds since 1970).
    public var lastSync: Timestamp?
    /// A withdrawal to a blockchain address sent but not known to be taken (see `PendingWithdrawal`).
    public var pendingWithdrawal: PendingWithdrawal?

    public init(
        pendingPurchase: PendingPurchase? = nil, autoRecharge: AutoRechargeRule? = nil, lastSync: Timestamp? = nil,
        pendingWithdrawal: PendingWithdrawal? = nil
    ) {
        self.pendingPurchase = pendingPurchase
        self.autoRecharge = autoRecharge
        self.lastSync = lastSync
        self.pendingWithdrawal = pendingWithdrawal
    }
}

/// Where the login lives: the secret part (the refresh token) and what identifies it.
///
/// Separate from `FlowStateStore` on purpose: the app keeps this in the Keychain (the next
/// issue's store) and its settings elsewhere, and the flows write them at different moments —
/// the token on every resume, the flow state on purchases and syncs. A save must be durable when
/// it returns: the flows persist a rotated token before using it, because the old one is dead.
public protocol CredentialStore: Sendable {
    /// The saved login (all fields nil when there is none).
    func loadLogin() throws -> StoredLogin
    /// Replaces the saved login.
    func saveLogin(_ login: StoredLogin) throws
}

extension CredentialStore {
    /// Forgets the login itself (token and account), keeping the server and email so logging in
    /// again needs only the password.
    public func clearLogin() throws {
        var login = try loadLogin()
        login.refreshToken = nil
        login.accountId = nil
        try saveLogin(login)
    }
}

/// Where the flows keep their non-secret state: the pending purchase (written BEFORE the purchase
/// is sent), the auto-recharge rule and the last sync time. Saves must be durable when they return.
public protocol FlowStateStore: Sendable {
    func loadFlowState() throws -> FlowState
    func saveFlowState(_ state: FlowState) throws
}

extension FlowStateStore {
    /// Load, change, save.
    public func updateFlowState(_ change: (inout FlowState) -> Void) throws {
        var state = try loadFlowState()
        change(&state)
        try saveFlowState(state)
    }
}
