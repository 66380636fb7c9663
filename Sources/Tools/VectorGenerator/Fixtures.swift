import Crypto
import DevIssuer
import OfflineNotes

/// The value, or a clear failure: this tool's inputs are constants, so nil is a bug here.
func required<T>(_ value: T?, _ what: String) -> T {
    guard let value else { fatalError("wallet-vectors: \(what) is missing") }
    return value
}

/// A signer that claims one public key and signs with another key: forged notes and transfers
/// whose key id is right and whose signature does not verify.
struct Impostor: MessageSigner {
    let claimed: PublicKeyBytes
    let actual: SoftwareSigner
    var publicKey: PublicKeyBytes { claimed }
    func sign(_ message: [UInt8]) throws -> [UInt8] { try actual.sign(message) }
}

/// What every vector file is built from: the fixed keys of `keys.json`, the issuer of
/// `messages.json`, the verifier's `now`, and the builders of notes, transfers and requests. The
/// chains that more than one file uses are `SharedChains`. Two runs differ only in their ECDSA
/// signatures.
struct Fixtures {
    /// The verifier's clock in every file unless a case says otherwise.
    let now: Timestamp = 1_800_000_000
    let eur = required(Currency("EUR"), "EUR")
    let usd = required(Currency("USD"), "USD")

    /// Signs the keyset and limits of `messages.json`.
    let authority: SoftwareSigner
    /// The issuer's one issuing key in `messages.json`'s keyset.
    let issuingKey: SoftwareSigner
    let alice: SoftwareSigner
    let bob: SoftwareSigner
    let carol: SoftwareSigner
    let mallory: SoftwareSigner
    /// The issuer of `messages.json`: four hops, 10,000.00 held offline at most.
    let issuer: DevIssuer
    /// Another issuer (its own authority and issuing key), unknown to `messages.json`.
    let stranger: DevIssuer

    init() throws {
        authority = try Self.key("authority")
        issuingKey = try Self.key("issuer")
        alice = try Self.key("alice")
        bob = try Self.key("bob")
        carol = try Self.key("carol")
        mallory = try Self.key("mallory")
        issuer = try DevIssuer(
            currency: eur, now: now, maxHops: 4, maxOfflineHolding: 1_000_000, authority: authority,
            issuingKey: issuingKey)
        stranger = try DevIssuer(
            currency: eur, now: now, authority: try Self.key("stranger-authority"),
            issuingKey: try Self.key("stranger-issuer"))
    }

    /// The fixed key named `label`: the P-256 scalar SHA-256("offline-wallet test key <label>").
    static func key(_ label: String) throws -> SoftwareSigner {
        try SoftwareSigner(rawRepresentation: Array(SHA256.hash(data: Array("offline-wallet test key \(label)".utf8))))
    }

    /// The note id of 16 bytes `byte`.
    func noteID(_ byte: UInt8) -> NoteID { NoteID(uncheckedBytes: Array(repeating: byte, count: 16)) }

    /// The nonce of 16 bytes `byte`.
    func nonce(_ byte: UInt8) -> Nonce { Nonce(uncheckedBytes: Array(repeating: byte, count: 16)) }

    /// A chain of one note of `amount` to `owner` with note id `id` and no transfer: issued at
    /// `issuedAt` (default `now`) for `lifetime` seconds, signed by `signer` (default the issuing
    /// key).
    func note(
        _ amount: UInt64, to owner: SoftwareSigner, id: UInt8, issuedAt: Timestamp? = nil, lifetime: UInt64 = 30 * 86_400,
        by signer: (any MessageSigner)? = nil, currency: Currency? = nil
    ) throws -> Chain {
        let issuedAt = issuedAt ?? now
        let signer: any MessageSigner = signer ?? issuingKey
        return Chain(
            note: try IssuedNote.issue(
                noteID: noteID(id), currency: currency ?? eur, amount: amount, owner: owner.publicKey, issuedAt: issuedAt,
                expiresAt: issuedAt + lifetime, issuer: signer))
    }

    /// `chain` with one more transfer, signed by `signer`, of `input` (default the state the chain
    /// holds) to `outputs` (owner, amount), created at `createdAt` (default a minute after `now`);
    /// the new chain holds output 0.
    func transfer(
        _ chain: Chain, by signer: any MessageSigner, _ outputs: [(SoftwareSigner, UInt64)], nonce: Nonce,
        input: StateRef? = nil, createdAt: Timestamp? = nil
    ) throws -> Chain {
        let transfer = try Transfer.sign(
            input: input ?? chain.heldRef, outputs: outputs.map { TransferOutput(owner: $0.0.publicKey, amount: $0.1) },
            nonce: nonce, createdAt: createdAt ?? now + 60, signer: signer)
        return chain.appending(transfer, holding: 0)
    }

    /// A request from `payee` named "Bob" with one TCP hint, expiring at `expiresAt` (default ten
    /// minutes after `now`).
    func request(
        _ payee: SoftwareSigner, _ amount: UInt64, _ nonce: Nonce, currency: Currency? = nil, expiresAt: Timestamp? = nil
    ) throws -> PaymentRequest {
        try PaymentRequest(
            payee: payee.publicKey, currency: currency ?? eur, amount: amount, nonce: nonce, expiresAt: expiresAt ?? now + 600,
            payeeName: "Bob", hints: [.tcp("127.0.0.1:7400")])
    }

    /// The encoded payment bundle of `chains`, in order.
    func bundleBytes(_ chains: Chain...) throws -> [UInt8] { try PaymentBundle(chains: chains).encoded }
}
