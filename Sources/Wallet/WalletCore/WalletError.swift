import OfflineNotes

/// Everything the wallet can refuse, with what the user should do about it.
public enum WalletError: Error, Equatable, Sendable, CustomStringConvertible {
    case insufficientFunds(available: UInt64, requested: UInt64, currency: Currency)
    /// Enough value exists, but part of it was restored from a backup and must be checked online.
    case needsOnlineCheck(UInt64, currency: Currency)
    /// Enough value exists, but part of it is at the hop limit or about to expire and must be
    /// refreshed online first.
    case needsRefresh(UInt64, currency: Currency)
    /// Enough value exists, but spread over more notes than one payment may carry.
    case tooManyNotes(largestPayment: UInt64, currency: Currency)
    /// No keyset and limits installed yet.
    case notConfigured
    case authorityMismatch
    case staleKeyset(have: UInt64, offered: UInt64)
    case requestExpired
    case cannotPaySelf
    /// An open-amount request was paid without saying how much.
    case amountRequired
    case invalidAmount(String)
    /// A request with this nonce was already paid with other content.
    case requestNonceReused
    case unknownRequest(Nonce)
    /// The request was already paid by a different payment.
    case requestAlreadyPaid
    case unknownPayment(Nonce)
    case holdingLimitExceeded(limit: UInt64, wouldHold: UInt64, currency: Currency)
    /// The payment was rejected (the verification error says why).
    case rejected(VerificationError)
    /// The payer spent a note twice; the proof is stored in the wallet.
    case doubleSpendDetected(FraudProof)
    /// A note offered to the wallet is not owned by the wallet's key.
    case notOwnedByWallet
    case wrongPassphrase
    case passphraseRequired
    case walletExists(String)
    case walletMissing(String)
    case insecureKeyFile(path: String, mode: UInt16)
    case corruptFile(String)
    case storage(String)

    public var description: String {
        switch self {
        case .insufficientFunds(let a, let r, let c):
            "Not enough offline money: \(Amount.format(a, currency: c)) \(c) spendable, \(Amount.format(r, currency: c)) \(c) needed. Purchase notes while online."
        case .needsOnlineCheck(let a, let c):
            "\(Amount.format(a, currency: c)) \(c) was restored from a backup and must be exchanged online before it can be spent offline. Go online and run: wallet sync"
        case .needsRefresh(let a, let c):
            "\(Amount.format(a, currency: c)) \(c) needs a sync to be refreshed (at the hop limit or about to expire) before it can be spent. Go online and run: wallet sync"
        case .tooManyNotes(let l, let c):
            "The money is spread over too many notes for one payment: at most \(Amount.format(l, currency: c)) \(c) can be paid at once. Pay in parts, or sync online to consolidate."
        case .notConfigured: "The wallet has no issuer keyset yet. Go online and sync once."
        case .authorityMismatch:
            "The issuer authority key differs from the one this wallet trusts. Check the server address; do not continue."
        case .staleKeyset(let have, let offered):
            "Refused keyset \(offered): this wallet already has the newer keyset \(have)."
        case .requestExpired: "The payment request has expired. Ask the payee for a new one."
        case .cannotPaySelf: "This request was made by this wallet; it cannot pay itself."
        case .amountRequired: "The request leaves the amount open: say how much to pay."
        case .invalidAmount(let why): "Invalid amount: \(why)."
        case .requestNonceReused: "A different request with the same nonce was already paid. Ask the payee for a new request."
        case .unknownRequest(let n): "No payment request \(n) was made by this wallet."
        case .requestAlreadyPaid: "This request was already paid by another payment. Create a new request."
        case .unknownPayment(let n): "No payment for request \(n) was made by this wallet."
        case .holdingLimitExceeded(let l, let w, let c):
            "Accepting would bring offline holdings to \(Amount.format(w, currency: c)) \(c), above the limit \(Amount.format(l, currency: c)) \(c). Sync (redeem) first or ask for less."
        case .rejected(let e): "Payment rejected: \(e)"
        case .doubleSpendDetected:
            "Payment rejected: the payer already spent this money elsewhere. The proof is kept and will be reported on sync."
        case .notOwnedByWallet: "These notes belong to another wallet key."
        case .wrongPassphrase: "Wrong passphrase, or the file was altered."
        case .passphraseRequired: "This file is encrypted: give its passphrase."
        case .walletExists(let p): "A wallet already exists at \(p). Choose another directory or remove it."
        case .walletMissing(let p): "No wallet at \(p). Create one first."
        case .insecureKeyFile(let p, let m):
            "Key file \(p) is readable by others (mode \(String(m, radix: 8))). Run: chmod 600 \(p)"
        case .corruptFile(let why): "The file is damaged or not a wallet file (\(why))."
        case .storage(let why): "The wallet database failed: \(why)"
        }
    }
}

extension WalletError {
    /// A stable machine-readable code (for `--json` output and the session's refusals).
    public var code: String {
        switch self {
        case .insufficientFunds: "insufficient_funds"
        case .needsOnlineCheck: "needs_online_check"
        case .needsRefresh: "needs_refresh"
        case .tooManyNotes: "too_many_notes"
        case .notConfigured: "not_configured"
        case .authorityMismatch: "authority_mismatch"
        case .staleKeyset: "stale_keyset"
        case .requestExpired: "request_expired"
        case .cannotPaySelf: "cannot_pay_self"
        case .amountRequired: "amount_required"
        case .invalidAmount: "invalid_amount"
        case .requestNonceReused: "request_nonce_reused"
        case .unknownRequest: "unknown_request"
        case .requestAlreadyPaid: "request_already_paid"
        case .unknownPayment: "unknown_payment"
        case .holdingLimitExceeded: "holding_limit_exceeded"
        case .rejected(let e): e.code
        case .doubleSpendDetected: "double_spend"
        case .notOwnedByWallet: "not_owned_by_wallet"
        case .wrongPassphrase: "wrong_passphrase"
        case .passphraseRequired: "passphrase_required"
        case .walletExists: "wallet_exists"
        case .walletMissing: "wallet_missing"
        case .insecureKeyFile: "insecure_key_file"
        case .corruptFile: "corrupt_file"
        case .storage: "storage"
        }
    }
}
