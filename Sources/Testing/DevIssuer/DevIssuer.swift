import Crypto
import OfflineNotes

/// An in-memory issuer for tests, the demo and benchmarks: an authority key, one issuing key,
/// a signed keyset and signed limits. The production issuer is the server, which keeps its
/// keys on disk; this type only stands in for it where no server runs.
public struct DevIssuer: Sendable {
    public let authority: SoftwareSigner
    public let issuingKey: SoftwareSigner
    public let keyset: Keyset
    public let limits: Limits
    public let currency: Currency

    public init(
        currency: Currency, now: Timestamp, maxHops: Int = 8, maxOfflineHolding: UInt64 = 1_000_000,
        noteLifetime: UInt64 = 30 * 86_400, redemptionGrace: UInt64 = 7 * 86_400,
        authority: SoftwareSigner = SoftwareSigner(), issuingKey: SoftwareSigner = SoftwareSigner()
    ) throws {
        self.authority = authority
        self.issuingKey = issuingKey
        self.currency = currency
        keyset = try Keyset.sign(
            sequence: 1, issuedAt: now,
            keys: [IssuerKey(publicKey: issuingKey.publicKey, validFrom: now - min(now, 86_400), validUntil: now + 365 * 86_400)],
            authority: authority)
        limits = try Limits.sign(
            currency: currency, maxOfflineHolding: maxOfflineHolding, maxHops: maxHops, noteLifetime: noteLifetime,
            redemptionGrace: redemptionGrace, issuedAt: now, authority: authority)
    }

    public var verifier: NoteVerifier { NoteVerifier(keyset: keyset, limits: limits) }

    /// Issues one note owned by `owner` as a chain with no transfers.
    public func issue(
        _ amount: UInt64, to owner: PublicKeyBytes, now: Timestamp, noteID: NoteID? = nil, lifetime: UInt64? = nil
    ) throws -> Chain {
        let id = noteID ?? NoteID(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) })
        let note = try IssuedNote.issue(
            noteID: id, currency: currency, amount: amount, owner: owner, issuedAt: now,
            expiresAt: now + (lifetime ?? limits.noteLifetime), issuer: issuingKey)
        return Chain(note: note)
    }
}
