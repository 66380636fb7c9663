/// Every way a protocol message can be rejected. `code` is the stable name used in
/// `docs/protocol.md`, the test vectors and (later) the server's problem+json responses.
public enum VerificationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before the message did.
    case truncated
    /// The bytes do not follow the encoding rules (the text says which field).
    case malformed(String)
    /// A message type byte this implementation does not know.
    case unexpectedMessageType(expected: UInt8, found: UInt8)
    /// A known message type in a version this implementation does not speak.
    case unsupportedVersion(messageType: UInt8, version: UInt8)
    case unknownIssuerKey(KeyID)
    /// The note was issued outside its issuing key's validity window.
    case issuerKeyOutsideValidity(KeyID)
    case badIssuerSignature
    /// A keyset or limits document not signed by the pinned authority key.
    case badAuthoritySignature
    /// A transfer names a signer other than the owner of the state it spends.
    case signerNotOwner(hop: Int)
    case badOwnerSignature(hop: Int)
    /// A transfer's input does not reference the state the chain holds at that point.
    case brokenChain(hop: Int)
    case valueNotConserved(hop: Int, input: UInt64, outputs: UInt64)
    case zeroAmount
    /// An amount or a sum exceeds 2^63 − 1.
    case amountOverflow
    case noteExpired(expiresAt: Timestamp)
    case tooManyHops(hops: Int, limit: Int)
    case wrongCurrency(expected: Currency, found: Currency)
    case wrongRecipient
    case wrongAmount(expected: UInt64, found: UInt64)
    case nonceMismatch
    case requestExpired(expiresAt: Timestamp)
    /// The payment (or one of its states) was already received, or appears twice in one bundle.
    case duplicatePayment
    /// One state is spent by two different transfers; both are in the proof.
    case doubleSpend(FraudProof)
    /// A receipt that is not a valid signature by the payee over this payment.
    case badReceipt(String)

    /// Stable machine-readable name (snake_case), used by vectors and APIs.
    public var code: String {
        switch self {
        case .truncated: "truncated"
        case .malformed: "malformed"
        case .unexpectedMessageType: "unexpected_message_type"
        case .unsupportedVersion: "unsupported_version"
        case .unknownIssuerKey: "unknown_issuer_key"
        case .issuerKeyOutsideValidity: "issuer_key_outside_validity"
        case .badIssuerSignature: "bad_issuer_signature"
        case .badAuthoritySignature: "bad_authority_signature"
        case .signerNotOwner: "signer_not_owner"
        case .badOwnerSignature: "bad_owner_signature"
        case .brokenChain: "broken_chain"
        case .valueNotConserved: "value_not_conserved"
        case .zeroAmount: "zero_amount"
        case .amountOverflow: "amount_overflow"
        case .noteExpired: "note_expired"
        case .tooManyHops: "too_many_hops"
        case .wrongCurrency: "wrong_currency"
        case .wrongRecipient: "wrong_recipient"
        case .wrongAmount: "wrong_amount"
        case .nonceMismatch: "nonce_mismatch"
        case .requestExpired: "request_expired"
        case .duplicatePayment: "duplicate_payment"
        case .doubleSpend: "double_spend"
        case .badReceipt: "bad_receipt"
        }
    }

    public var description: String {
        switch self {
        case .truncated: "The data ended early; ask the sender to send it again."
        case .malformed(let why): "The data is not a valid message (\(why))."
        case .unexpectedMessageType(let e, let f):
            "Expected message type \(e) but found \(f)."
        case .unsupportedVersion(let t, let v):
            "Message type \(t) version \(v) is not supported; update the app."
        case .unknownIssuerKey(let id):
            "The note was signed by issuer key \(id), which this wallet does not know; sync to fetch the current keyset."
        case .issuerKeyOutsideValidity(let id): "Issuer key \(id) was not valid when the note was issued."
        case .badIssuerSignature: "The issuer signature on a note is invalid: the note is forged or damaged."
        case .badAuthoritySignature: "The keyset or limits are not signed by the issuer authority."
        case .signerNotOwner(let hop): "Transfer \(hop) is signed by someone who does not own the note."
        case .badOwnerSignature(let hop): "The owner signature on transfer \(hop) is invalid."
        case .brokenChain(let hop): "Transfer \(hop) does not spend the note state before it."
        case .valueNotConserved(let hop, let i, let o):
            "Transfer \(hop) outputs \(o) but spends \(i): value is not conserved."
        case .zeroAmount: "An amount is zero."
        case .amountOverflow: "An amount is too large."
        case .noteExpired(let at): "A note expired at \(at); it can only be redeemed online."
        case .tooManyHops(let h, let l): "A note has changed hands \(h) times (limit \(l)); it must be refreshed online."
        case .wrongCurrency(let e, let f): "Expected \(e) but the payment is in \(f)."
        case .wrongRecipient: "The payment is not addressed to this wallet."
        case .wrongAmount(let e, let f): "Expected \(e) minor units but the payment carries \(f)."
        case .nonceMismatch: "The payment answers a different request."
        case .requestExpired(let at): "The payment request expired at \(at); create a new one."
        case .duplicatePayment: "This payment, or a note in it, was already received."
        case .doubleSpend: "A note in this payment was already spent elsewhere: the payer double spent."
        case .badReceipt(let why): "The receipt is invalid (\(why))."
        }
    }
}
