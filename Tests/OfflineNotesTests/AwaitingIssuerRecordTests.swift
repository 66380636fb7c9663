import OfflineNotes
import PropertyBased
import Testing

/// `verifyChainAwaitingIssuerRecord` then `confirm(record:)` must answer exactly what
/// `verifyChain` answers, for every chain and every record (docs/protocol.md §5).
@Suite struct AwaitingIssuerRecordTests {
    let f: Fixture
    init() throws { f = try Fixture(maxHops: 4) }

    /// The outcome of each path: nil for success with the state, else the refusal code.
    func outcomes(_ bytes: [UInt8], record: [UInt8]?) -> (full: String?, recorded: String?, state: Bool) {
        var full: VerifiedState?
        var recorded: VerifiedState?
        let a = VerificationError.code { full = try f.verifier.verifyChain(bytes, now: f.now) }
        let b = VerificationError.code {
            recorded = try f.verifier.verifyChainAwaitingIssuerRecord(bytes, now: f.now).confirm(record: record)
        }
        return (a, b, full == recorded)
    }

    @Test func theRecordSettlesOnlyTheNoteItHolds() throws {
        let chain = try f.chain(hops: 2, payee: f.carol)
        let pending = try f.verifier.verifyChainAwaitingIssuerRecord(chain.encoded, now: f.now)
        let verified = try f.verifier.verifyChain(chain.encoded, now: f.now)
        #expect(pending.noteID == chain.note.noteID)
        #expect(pending.holder == f.carol.publicKey)
        #expect(pending.expiresAt == chain.note.expiresAt)
        #expect(pending.matching(record: chain.note.encoded) == verified)
        #expect(try pending.confirm(record: chain.note.encoded) == verified)
        #expect(try pending.confirmBySignature() == verified)
        // No record, a shorter or longer one, another note's: not settled, so verified instead.
        let other = try f.note(10_000, to: f.alice).note.encoded
        for record in [nil, Array(chain.note.encoded.dropLast()), chain.note.encoded + [0], other] {
            #expect(pending.matching(record: record) == nil)
            #expect(try pending.confirm(record: record) == verified)
        }
    }

    @Test func aForgedNoteIsRefusedUnlessTheRecordHoldsItsBytes() throws {
        let note = try f.forgedNote()
        let (payment, _) = try f.pay(Chain(note: note), from: f.alice, to: f.bob.publicKey, 1_000)
        let pending = try f.verifier.verifyChainAwaitingIssuerRecord(payment.encoded, now: f.now)
        #expect(VerificationError.code { try pending.confirm(record: nil) } == "bad_issuer_signature")
        #expect(VerificationError.code { try pending.confirmBySignature() } == "bad_issuer_signature")
        // The record is trusted as the signature would be: that is the issuer's side of the bargain.
        #expect(pending.matching(record: note.encoded) != nil)

        // Forged in the transfer too: refused for the note at once, as §5 orders.
        let stolen = try Transfer.sign(
            input: Chain(note: note).heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 1_000)], nonce: f.nonce(),
            createdAt: f.now, signer: Impostor(claimed: f.alice.publicKey, actual: SoftwareSigner()))
        let both = Chain(note: note).appending(stolen, holding: 0).encoded
        #expect(
            VerificationError.code { try f.verifier.verifyChainAwaitingIssuerRecord(both, now: f.now) } == "bad_issuer_signature")
        #expect(VerificationError.code { try f.verifier.verifyChain(both, now: f.now) } == "bad_issuer_signature")
    }

    /// Every one-bit flip of honest chains of 1 to 3 hops, then random changes: the same
    /// answer from both paths, with the genuine note's record and with none.
    @Test func bothPathsAgreeOnEveryChangedChain() async throws {
        for hops in 1...3 {
            let chain = try f.chain(hops: hops, payee: f.carol)
            let record = chain.note.encoded
            let valid = chain.encoded
            for position in valid.indices {
                var bytes = valid
                bytes[position] ^= 0x01
                for r in [record, nil] {
                    let o = outcomes(bytes, record: r)
                    #expect(
                        o.full == o.recorded && o.state,
                        "hops \(hops), byte \(position): \(o.full ?? "ok") vs \(o.recorded ?? "ok")")
                }
            }
            await propertyCheck(count: 200, input: Gen.int(in: 0...(valid.count - 1)), Gen.uint8(in: 1...255)) { position, mask in
                var bytes = valid
                bytes[position] ^= mask
                let o = outcomes(bytes, record: record)
                #expect(o.full == o.recorded && o.state)
            }
        }
    }
}
