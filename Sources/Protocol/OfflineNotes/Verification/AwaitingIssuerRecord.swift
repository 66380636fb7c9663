/// A chain verified in full except for its note's issuer signature, which its issuer confirms
/// against its own record of the note instead of verifying its own signature again.
///
/// An issuer keeps the bytes of every note it signs. When a chain comes back to it, a note
/// whose bytes equal that record, signature included, is one it signed: checking the signature
/// would only repeat what it knows, at the price of one ECDSA verification per chain (about
/// half of the CPU that verifying a one-hop chain takes). A note that differs from the record,
/// or has none, has its signature verified as usual.
///
/// The outcome is always the one `NoteVerifier.verify` gives for the same chain, refusal
/// included (`docs/protocol.md` §5): phase 1 runs in full first, a failing owner signature is
/// reported only after the issuer signature was verified (so a chain with both forged is
/// refused `bad_issuer_signature`, as §5 orders), and `confirm(record:)` verifies the issuer
/// signature whenever the record does not settle it.
///
/// Only for the issuer that signed the notes, with records it wrote itself: anyone else must
/// use `NoteVerifier.verify`, since a record is trusted exactly as the signature would be.
public struct AwaitingIssuerRecord: Sendable {
    let unconfirmed: VerifiedState
    let verifier: NoteVerifier

    /// The note's id: the key of the issuer's record.
    public var noteID: NoteID { unconfirmed.noteID }
    /// The key that holds the chain's state (its last owner).
    public var holder: PublicKeyBytes { unconfirmed.owner }
    /// When the note expires.
    public var expiresAt: Timestamp { unconfirmed.expiresAt }

    /// The verified state, once the issuer signature is settled.
    ///
    /// - Parameter record: the note's bytes as the issuer stored them when it signed it
    ///   (`IssuedNote.encoded`), or nil if it has no record of this note id. When they equal the
    ///   chain's note, the signature is the issuer's own and is not verified again; otherwise it
    ///   is verified with the issuing key.
    /// - Throws: `VerificationError.badIssuerSignature` when the record does not match and the
    ///   signature is not valid.
    public func confirm(record: [UInt8]?) throws(VerificationError) -> VerifiedState {
        if let state = matching(record: record) { return state }
        return try confirmBySignature()
    }

    /// The verified state if `record` (as for `confirm(record:)`) is byte for byte the chain's
    /// note, signature included; nil otherwise, with nothing verified: the caller then settles
    /// the signature with `confirmBySignature()`, perhaps somewhere cheaper to spend the time
    /// (outside a database transaction).
    public func matching(record: [UInt8]?) -> VerifiedState? {
        let note = unconfirmed.chain.note
        guard let record, record.count == note.body.count + note.signature.count,
            record[..<note.body.count].elementsEqual(note.body), record[note.body.count...].elementsEqual(note.signature)
        else { return nil }
        return unconfirmed
    }

    /// The verified state, with the issuer signature verified and no record consulted.
    public func confirmBySignature() throws(VerificationError) -> VerifiedState {
        try verifier.checkIssuerSignature(unconfirmed.chain.note)
        return unconfirmed
    }
}

extension NoteVerifier {
    /// Decodes and verifies a chain like `verifyChain`, except for the note's issuer signature,
    /// which the result's `confirm(record:)` settles against the issuer's record. For the issuer
    /// only; see `AwaitingIssuerRecord`.
    ///
    /// - Throws: exactly the error `verifyChain` throws for these bytes, whenever that error is
    ///   not `badIssuerSignature` on a chain that is otherwise valid (that one comes from
    ///   `confirm`).
    public func verifyChainAwaitingIssuerRecord(
        _ bytes: [UInt8], now: Timestamp, checkExpiry: Bool = true
    ) throws(VerificationError)
        -> AwaitingIssuerRecord
    {
        let state = try checkStructure(Chain(decoding: bytes), now: now, checkExpiry: checkExpiry)
        do {
            try checkOwnerSignatures(state)
        } catch {
            // §5 phase 2 checks the issuer signature before the owners': a chain forged in both
            // places is refused for its note.
            try checkIssuerSignature(state.chain.note)
            throw error
        }
        return AwaitingIssuerRecord(unconfirmed: state, verifier: self)
    }
}
