import OfflineNotes

/// Every refusal of the issuer, with a stable machine code for APIs (problem+json `code`).
public enum IssuerError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidField(field: String, reason: String)
    case emailTaken
    case badCredentials
    case accountNotFound
    case accountFrozen
    case insufficientFunds(balance: Int64, requested: UInt64)
    case holdingLimitExceeded(limit: UInt64, outstanding: UInt64, requested: UInt64)
    case walletKeyNotRegistered
    case walletKeyTaken
    case badChallenge(String)
    case idempotencyConflict
    case fundingDisabled
    case notOwner
    case invalidChain(VerificationError)
    case storage(String)

    public var code: String {
        switch self {
        case .invalidField: "invalid_field"
        case .emailTaken: "email_taken"
        case .badCredentials: "bad_credentials"
        case .accountNotFound: "account_not_found"
        case .accountFrozen: "account_frozen"
        case .insufficientFunds: "insufficient_funds"
        case .holdingLimitExceeded: "holding_limit_exceeded"
        case .walletKeyNotRegistered: "wallet_key_not_registered"
        case .walletKeyTaken: "wallet_key_taken"
        case .badChallenge: "bad_challenge"
        case .idempotencyConflict: "idempotency_conflict"
        case .fundingDisabled: "funding_disabled"
        case .notOwner: "not_owner"
        case .invalidChain(let e): e.code
        case .storage: "storage"
        }
    }

    public var description: String {
        switch self {
        case .invalidField(let f, let r): "Field '\(f)' is invalid: \(r)."
        case .emailTaken: "An account with this email exists. Log in instead."
        case .badCredentials: "Wrong email or password."
        case .accountNotFound: "No such account."
        case .accountFrozen: "This account is frozen after a double spend. Contact support."
        case .insufficientFunds(let b, let r): "Balance \(b) is below the \(r) requested. Fund the account first."
        case .holdingLimitExceeded(let l, let o, let r):
            "Buying \(r) would bring offline notes to \(o + r), above the limit \(l). Redeem or spend notes first."
        case .walletKeyNotRegistered: "This wallet key is not registered to the account. Register it first."
        case .walletKeyTaken: "This wallet key is registered to another account."
        case .badChallenge(let why): "Key registration failed: \(why). Ask for a new challenge."
        case .idempotencyConflict: "This idempotency key was used for a different request. Use a new key."
        case .fundingDisabled: "Development funding is disabled on this server."
        case .notOwner: "The note is not owned by a key of this account."
        case .invalidChain(let e): "The note chain is invalid: \(e)"
        case .storage(let m): "The server's database failed: \(m). Retry later."
        }
    }
}
