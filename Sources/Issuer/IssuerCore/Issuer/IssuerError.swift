import OfflineNotes

/// Every refusal of the issuer, with a stable machine code for APIs (problem+json `code`).
public enum IssuerError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidField(field: String, reason: String)
    case emailTaken
    /// Another account's address differs only in case, width or look-alike letters
    /// (`EmailAddress.skeleton`). Same code as `emailTaken`, so clients need no new case.
    case emailLookAlike
    case badCredentials
    /// A refresh token that no longer opens a session: logged out, expired, or revoked (also
    /// when it was replayed). Not the password's fault: the answer says to log in again.
    case sessionEnded
    case accountNotFound
    /// Frozen by the double-spend rule (the account's key signed a state twice).
    case accountFrozen
    /// Frozen by an operator (API or console). The operator's reason stays in the audit log:
    /// it is an internal note, not a message to the account holder.
    case accountFrozenByOperator
    /// Only user accounts are frozen or unfrozen; `account` is an admin or system account.
    case accountNotFreezable(account: Int64, role: String)
    /// Amounts in minor units of `currency` (the issuer's), shown as money in `description`.
    case insufficientFunds(balance: Int64, requested: UInt64, currency: Currency)
    case holdingLimitExceeded(limit: UInt64, outstanding: UInt64, requested: UInt64, currency: Currency)
    /// A balance (or a note's redeemed total) would leave the signed 64-bit range the ledger
    /// stores. Refused before anything is written.
    case amountOverflow
    case walletKeyNotRegistered
    case walletKeyTaken
    case badChallenge(String)
    case idempotencyConflict
    case fundingDisabled
    case notOwner
    case invalidChain(VerificationError)
    /// No withdrawal with this id belongs to the account (escrow settlement).
    case withdrawalNotFound
    /// The database settles on another network or escrow than the one configured (`bindEscrow`).
    case escrowMismatch(boundChainID: UInt64, boundEscrow: [UInt8])
    /// No escrow deposit has this transaction hash and log index.
    case depositNotFound
    /// The escrow deposit is not (or no longer) in `system:unclaimed`: `status` is `credited`
    /// (to `account`, maybe by an earlier assignment) or `refused`.
    case depositNotUnclaimed(status: String, account: Int64?)
    /// Reconciliation does not show `available` minor units of unexplained tokens in the
    /// escrow (its positive difference, less surplus booked meanwhile): booking `requested`
    /// would put money in the books that the escrow does not hold.
    case noSurplus(available: Int64, requested: UInt64, currency: Currency)
    /// This transaction's surplus was booked before with another amount.
    case surplusConflict(booked: UInt64, currency: Currency)
    case storage(String)

    public var code: String {
        switch self {
        case .invalidField: "invalid_field"
        case .emailTaken, .emailLookAlike: "email_taken"
        case .badCredentials: "bad_credentials"
        case .sessionEnded: "session_ended"
        case .accountNotFound: "account_not_found"
        case .accountFrozen, .accountFrozenByOperator: "account_frozen"
        case .accountNotFreezable: "account_not_freezable"
        case .insufficientFunds: "insufficient_funds"
        case .holdingLimitExceeded: "holding_limit_exceeded"
        case .amountOverflow: "amount_overflow"
        case .walletKeyNotRegistered: "wallet_key_not_registered"
        case .walletKeyTaken: "wallet_key_taken"
        case .badChallenge: "bad_challenge"
        case .idempotencyConflict: "idempotency_conflict"
        case .fundingDisabled: "funding_disabled"
        case .notOwner: "not_owner"
        case .invalidChain(let e): e.code
        case .withdrawalNotFound: "withdrawal_not_found"
        case .escrowMismatch: "escrow_mismatch"
        case .depositNotFound: "deposit_not_found"
        case .depositNotUnclaimed: "deposit_not_unclaimed"
        case .noSurplus: "no_surplus"
        case .surplusConflict: "surplus_conflict"
        case .storage: "storage"
        }
    }

    public var description: String {
        switch self {
        case .invalidField(let f, let r): "Field '\(f)' is invalid: \(r)."
        case .emailTaken: "An account with this email exists. Log in instead."
        case .emailLookAlike:
            "An account exists whose address looks the same (it differs only in letter case, width or look-alike letters). Log in with that address or use another one."
        case .badCredentials: "Wrong email or password."
        case .sessionEnded:
            "This login session has ended (logged out, expired or revoked). Log in again with your email and password."
        case .accountNotFound: "No such account."
        case .accountFrozen: "This account is frozen after a double spend. Contact support."
        case .accountFrozenByOperator: "This account was frozen by the issuer's operator. Contact support."
        case .accountNotFreezable(let account, let role):
            "Only user accounts can be frozen or unfrozen; account \(account) is \(role == "admin" ? "an admin" : "a \(role)") account. Nothing was changed."
        case .insufficientFunds(let b, let r, let c):
            "Balance \(Self.money(b, c)) is below the \(Self.money(r, c)) requested. Fund the account first."
        case .holdingLimitExceeded(let l, let o, let r, let c):
            "Buying \(Self.money(r, c)) would bring offline notes to \(Amount.sum([o, r]).map { Self.money($0, c) } ?? "more than \(Self.money(Amount.max, c))"), above the limit \(Self.money(l, c)). Redeem or spend notes first."
        case .amountOverflow:
            "This would take a balance past the largest amount the ledger can hold. Nothing was changed; use a smaller amount."
        case .walletKeyNotRegistered: "This wallet key is not registered to the account. Register it first."
        case .walletKeyTaken: "This wallet key is registered to another account."
        case .badChallenge(let why): "Key registration failed: \(why). Ask for a new challenge."
        case .idempotencyConflict: "This idempotency key was used for a different request. Use a new key."
        case .fundingDisabled: "Development funding is disabled on this server."
        case .notOwner: "The note is not owned by a key of this account."
        case .invalidChain(let e): "The note chain is invalid: \(e)"
        case .withdrawalNotFound: "No withdrawal with this id belongs to your account. List your withdrawals to find its id."
        case .escrowMismatch(let chainID, let escrow):
            "This database settles with escrow 0x\(Hex.encode(escrow)) on the network with chain ID \(chainID); it cannot follow another escrow or network. Give that --escrow-address and --escrow-rpc, or start with a new database."
        case .depositNotFound:
            "No escrow deposit has this transaction hash and log index. Take both from the escrow's Deposit event (the server's warning about the unknown reference names them)."
        case .depositNotUnclaimed(let status, let account):
            status == "credited"
                ? "This deposit is already credited to account \(account.map(String.init) ?? "?"); nothing was changed. Move money between accounts by other means if that was wrong."
                : "This deposit was \(status), not credited to system:unclaimed; there is nothing to assign. Nothing was changed."
        case .noSurplus(let available, let requested, let c):
            "Reconciliation shows \(Self.money(max(0, available), c)) in the escrow that the books do not hold, less than the \(Self.money(requested, c)) to book; nothing was booked. Check GET /v1/admin/escrow/reconciliation and book at most its difference."
        case .surplusConflict(let booked, let c):
            "This transaction's surplus was already booked as \(Self.money(booked, c)); nothing was changed. A transfer is booked once, with its whole amount."
        case .storage(let m): "The server's database failed: \(m). Retry later."
        }
    }

    /// Minor units as money, e.g. 250 EUR → "2.50 EUR", -3000 → "-30.00 EUR".
    static func money(_ minor: UInt64, _ currency: Currency) -> String {
        "\(Amount.format(minor, currency: currency)) \(currency.code)"
    }

    static func money(_ minor: Int64, _ currency: Currency) -> String {
        (minor < 0 ? "-" : "") + money(minor.magnitude, currency)
    }
}
