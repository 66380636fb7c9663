import IssuerCore
import IssuerTesting
import OfflineNotes
import Testing

/// docs/protocol.md §7: a fraud proof is checked as its proving chain extended by each transfer.
/// A proving chain of 255 transfers (the most `hop_count` can say) extended by one has no
/// encoding: re-encoding it to verify it would trap on the one-byte count, and any signed-in
/// wallet could stop the server with one report. It is verified as a value and refused
/// `too_many_hops` (400), like any chain above the limit.
@Suite struct FraudProofLimitTests {
    @Test(arguments: Backend.available)
    func aProofExtendingA255HopChainIsRefusedNotATrap(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let alice = SoftwareSigner()
        let note = try IssuedNote.issue(
            noteID: NoteID(uncheckedBytes: Array(repeating: 9, count: 16)), currency: Currency("EUR")!, amount: 1_000,
            owner: alice.publicKey, issuedAt: IssuerHarness.start, expiresAt: IssuerHarness.start + 86_400,
            issuer: IssuerHarness.issuingKey)
        // The hops need not be valid: the count is refused before anything else is looked at.
        let hop = try Transfer.sign(
            input: note.stateRef, outputs: [TransferOutput(owner: alice.publicKey, amount: 1_000)],
            nonce: Nonce(uncheckedBytes: Array(repeating: 1, count: 16)), createdAt: IssuerHarness.start, signer: alice)
        let proving = Chain(note: note, transfers: Array(repeating: hop, count: 255))
        let other = try Transfer.sign(
            input: note.stateRef, outputs: [TransferOutput(owner: alice.publicKey, amount: 1_000)],
            nonce: Nonce(uncheckedBytes: Array(repeating: 2, count: 16)), createdAt: IssuerHarness.start, signer: alice)
        await #expect {
            _ = try await h.issuer.reportFraud(account: 1, chain: proving.encoded, first: hop.encoded, second: other.encoded)
        } throws: { error in
            guard case IssuerError.invalidChain(let refusal) = error else { return false }
            return refusal.code == "too_many_hops"
        }
    }
}
