import Foundation
import IssuerCore
import IssuerTesting
import OfflineNotes
import SQLStore
import Testing
import WalletCore

/// Signs with a key of its own while claiming another's: how these tests forge signatures.
private struct Claims: MessageSigner {
    let publicKey: PublicKeyBytes
    let actual = SoftwareSigner()
    init(_ claimed: PublicKeyBytes = IssuerHarness.issuingKey.publicKey) { publicKey = claimed }
    func sign(_ message: [UInt8]) throws -> [UInt8] { try actual.sign(message) }
}

/// Redemption settles the issuer's own signature against `issued_note.note` instead of
/// verifying it (`AwaitingIssuerRecord`). Whatever the record says, every chain must get the
/// answer full verification gives (docs/protocol.md §5): these are the chains where the two
/// could part.
@Suite struct IssuerRecordTests {
    /// `owner` pays `to` the whole note, for the request `nonce`.
    func chain(
        _ note: IssuedNote, from owner: Wallet, to payee: Wallet, at now: UInt64, signer: (any MessageSigner)? = nil
    ) throws -> Chain {
        let chain = Chain(note: note)
        let signer: any MessageSigner = signer ?? owner.identity.signer
        let transfer = try Transfer.sign(
            input: chain.heldRef, outputs: [TransferOutput(owner: payee.publicKey, amount: note.amount)],
            nonce: Nonce(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) }), createdAt: now,
            signer: signer)
        return chain.appending(transfer, holding: 0)
    }

    func forged(_ amount: UInt64, owner: Wallet, noteID: NoteID? = nil, issuedAt: UInt64, expiresAt: UInt64) throws -> IssuedNote
    {
        try IssuedNote.issue(
            noteID: noteID ?? NoteID(uncheckedBytes: (0..<16).map { _ in UInt8.random(in: 0...255) }), currency: Currency("EUR")!,
            amount: amount,
            owner: owner.publicKey, issuedAt: issuedAt, expiresAt: expiresAt, issuer: Claims())
    }

    @Test(arguments: Backend.available)
    func forgedNotesAreRefusedAsForgedWhateverTheRecordSays(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (aliceAccount, alice) = try await h.user("alice", funds: 10_000)
        let (bob, bobWallet) = try await h.user("bob")
        let now = h.clock.now
        let bought = try await h.issuer.purchase(
            account: aliceAccount, walletKey: alice.publicKey, amount: 4_000, idempotencyKey: UUID().uuidString)
        try alice.deposit(bought)
        let genuine = bought[0].note
        let books = try await BooksSnapshot(h.database)

        let cases: [(String, Chain)] = [
            // No record: a note id the issuer never issued.
            (
                "no record",
                try chain(
                    try forged(4_000, owner: alice, issuedAt: now, expiresAt: now + 86_400), from: alice, to: bobWallet, at: now)
            ),
            // A record under the same note id, but another note: the forger copied a real id.
            (
                "a real note's id",
                try chain(
                    try forged(
                        9_000, owner: alice, noteID: genuine.noteID, issuedAt: genuine.issuedAt, expiresAt: genuine.expiresAt),
                    from: alice, to: bobWallet, at: now)
            ),
            // The real note, byte for byte, but for its signature.
            (
                "a real note's body",
                try Self.replacingNoteSignature(
                    try chain(genuine, from: alice, to: bobWallet, at: now), with: (0..<64).map { _ in UInt8.random(in: 0...255) }
                )
            ),
            // Forged twice: §5 checks the issuer signature before the owner's.
            (
                "forged transfer too",
                try chain(
                    try forged(4_000, owner: alice, issuedAt: now, expiresAt: now + 86_400), from: alice, to: bobWallet, at: now,
                    signer: Claims(alice.publicKey))
            ),
            // An expiry no honest note has: nothing may overflow before the signature is checked.
            (
                "expiry at the end of time",
                try chain(try forged(4_000, owner: alice, issuedAt: now, expiresAt: .max), from: alice, to: bobWallet, at: now)
            ),
        ]
        for (name, chain) in cases {
            #expect(
                try await h.issuer.redeem(account: bob, chains: [chain.encoded]).map(\.code) == ["bad_issuer_signature"],
                "\(name)")
        }
        // All at once, in one batch: nothing written.
        let all = try await h.issuer.redeem(account: bob, chains: cases.map(\.1.encoded))
        #expect(all.map(\.code) == Array(repeating: "bad_issuer_signature", count: cases.count))
        #expect(try await BooksSnapshot(h.database) == books)

        // Beside an honest chain in one batch, only the honest one is credited.
        let honest = try h.pay(1_000, from: alice, to: bobWallet)[0]
        let mixed = try await h.issuer.redeem(account: bob, chains: [cases[1].1.encoded, honest.encoded, cases[2].1.encoded])
        #expect(mixed.map(\.code) == ["bad_issuer_signature", "credited", "bad_issuer_signature"])
        #expect(try await h.balance(bob) == 1_000)
        try await h.expectBooksBalance()
    }

    @Test(arguments: Backend.available)
    func aForgedNotePastItsGraceIsRefusedAsForgedNotAsExpired(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 1_000)
        let (bob, bobWallet) = try await h.user("bob")
        let now = h.clock.now
        let forgedChain = try chain(
            try forged(1_000, owner: alice, issuedAt: now, expiresAt: now + 60), from: alice, to: bobWallet, at: now)
        let realChain = try chain(try h.note(1_000, owner: alice.publicKey), from: alice, to: bobWallet, at: now)
        h.clock.now += 60 + 15 * 86_400  // past the 14-day grace of both
        #expect(
            try await h.issuer.redeem(account: bob, chains: [forgedChain.encoded, realChain.encoded]).map(\.code) == [
                "bad_issuer_signature", "expired",
            ])
    }

    /// ECDSA signatures are malleable: (r, n − s) is as valid as (r, s). Such a note is the
    /// issuer's, though its bytes differ from the record: it is verified outside the batch and
    /// written by a second transaction, and credited exactly once with the original.
    @Test(arguments: Backend.available)
    func aValidSignatureTheRecordDoesNotHoldIsVerifiedAndCreditedOnce(_ backend: Backend) async throws {
        let h = try await IssuerHarness(backend)
        let (_, alice) = try await h.user("alice", funds: 10_000, purchase: 5_000)
        let (bob, bobWallet) = try await h.user("bob")
        let paid = try h.pay(2_000, from: alice, to: bobWallet)[0]
        let twin = try Self.withMalleatedNoteSignature(paid)
        #expect(twin.encoded != paid.encoded)
        #expect(
            try NoteVerifier(keyset: h.issuer.keyset, limits: h.issuer.limits).verify(twin, now: h.clock.now).ref == paid.heldRef)

        // The twin alone, then beside another honest chain in one batch; then the original.
        #expect(try await h.issuer.redeem(account: bob, chains: [twin.encoded]) == [.credited(amount: 2_000)])
        let other = try h.pay(1_000, from: alice, to: bobWallet)[0]
        #expect(
            try await h.issuer.redeem(account: bob, chains: [twin.encoded, other.encoded]) == [
                .alreadyCredited(amount: 2_000), .credited(amount: 1_000),
            ])
        #expect(try await h.issuer.redeem(account: bob, chains: [paid.encoded]) == [.alreadyCredited(amount: 2_000)])
        #expect(try await h.balance(bob) == 3_000)
        try await h.expectBooksBalance()

        // A note signed by the issuer's key that the issuer has no record of is verified, then
        // refused for what the books say of it.
        let unrecorded = try chain(try h.note(500, owner: alice.publicKey), from: alice, to: bobWallet, at: h.clock.now)
        #expect(try await h.issuer.redeem(account: bob, chains: [unrecorded.encoded]).map(\.code) == ["unknown_note"])
        #expect(try await h.balance(bob) == 3_000)
    }

    /// The chain with its note's signature (r, s) replaced by (r, n − s), n the order of P-256.
    static func withMalleatedNoteSignature(_ chain: Chain) throws -> Chain {
        let signature = chain.note.signature
        let order: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ]
        var negated = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for i in (0..<32).reversed() {
            let d = Int(order[i]) - Int(signature[32 + i]) - borrow
            negated[i] = UInt8((d + 256) % 256)
            borrow = d < 0 ? 1 : 0
        }
        return try replacingNoteSignature(chain, with: Array(signature[..<32]) + negated)
    }

    /// The chain's bytes with the note's signature replaced.
    static func replacingNoteSignature(_ chain: Chain, with signature: [UInt8]) throws -> Chain {
        let note = chain.note.encoded
        let encoded = chain.encoded
        let start = try #require((0...(encoded.count - note.count)).first { Array(encoded[$0..<($0 + note.count)]) == note })
        var bytes = encoded
        bytes.replaceSubrange((start + chain.note.body.count)..<(start + note.count), with: signature)
        return try Chain(decoding: bytes)
    }
}
