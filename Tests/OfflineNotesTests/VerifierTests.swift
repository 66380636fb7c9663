import DevIssuer
import OfflineNotes
import PropertyBased
import Testing

/// Claims to be `claimed` but signs with another key: how forgeries are made in these tests.
struct Impostor: MessageSigner {
    let claimed: PublicKeyBytes
    let actual: SoftwareSigner
    var publicKey: PublicKeyBytes { claimed }
    func sign(_ message: [UInt8]) throws -> [UInt8] { try actual.sign(message) }
}

extension Fixture {
    /// A note of 1,000 to alice, id 1…1, claiming the issuer's key but signed with another.
    func forgedNote() throws -> IssuedNote {
        try IssuedNote.issue(
            noteID: NoteID(uncheckedBytes: Array(repeating: 1, count: 16)), currency: eur, amount: 1_000,
            owner: alice.publicKey, issuedAt: now, expiresAt: now + 100,
            issuer: Impostor(claimed: issuer.issuingKey.publicKey, actual: SoftwareSigner()))
    }
}

@Suite struct VerifierTests {
    let f: Fixture
    init() throws { f = try Fixture(maxHops: 4) }

    func verifyPayment(_ chains: [Chain], _ request: PaymentRequest, now: Timestamp? = nil) -> String? {
        VerificationError.code {
            try f.verifier.verifyPayment(try PaymentBundle(chains: chains).encoded, request: request, now: now ?? f.now)
        }
    }

    @Test func honestPaymentsVerifyForOneToMaxHops() throws {
        for hops in 1...4 {
            let chain = try f.chain(hops: hops, payee: f.carol, nonce: f.nonce(9))
            let amount = chain.heldOutput!.amount
            let request = try f.request(to: f.carol, amount, nonce: f.nonce(9))
            let paid = try f.verifier.verifyPayment(PaymentBundle(chains: [chain]).encoded, request: request, now: f.now)
            #expect(paid.amount == amount)
            #expect(paid.received.count == 1)
            #expect(paid.received[0].owner == f.carol.publicKey)
            #expect(paid.received[0].hops == hops)
            #expect(paid.received[0].spends.count == hops)
        }
    }

    @Test func openAmountRequestsAcceptAnyPositiveTotal() throws {
        let (payment, _) = try f.pay(try f.note(500, to: f.alice), from: f.alice, to: f.bob.publicKey, 123)
        let open = try f.request(to: f.bob, 0)
        #expect(try f.verifier.verifyPayment(PaymentBundle(chains: [payment]).encoded, request: open, now: f.now).amount == 123)
    }

    @Test func multiNotePaymentsSumTheirOutputs() throws {
        let a = try f.pay(try f.note(300, to: f.alice), from: f.alice, to: f.bob.publicKey, 300).payment
        let b = try f.pay(try f.note(500, to: f.alice), from: f.alice, to: f.bob.publicKey, 200).payment
        #expect(verifyPayment([a, b], try f.request(to: f.bob, 500)) == nil)
        #expect(verifyPayment([a, b], try f.request(to: f.bob, 501)) == "wrong_amount")
    }

    @Test func forgedIssuerSignatureIsRejected() throws {
        let (payment, _) = try f.pay(Chain(note: try f.forgedNote()), from: f.alice, to: f.bob.publicKey, 1_000)
        #expect(verifyPayment([payment], try f.request(to: f.bob, 1_000)) == "bad_issuer_signature")
    }

    @Test func notesFromUnknownOrOutOfWindowKeysAreRejected() throws {
        let stranger = try DevIssuer(currency: f.eur, now: f.now)
        let (p1, _) = try f.pay(
            try stranger.issue(100, to: f.alice.publicKey, now: f.now), from: f.alice, to: f.bob.publicKey, 100)
        #expect(verifyPayment([p1], try f.request(to: f.bob, 100)) == "unknown_issuer_key")
        // Issued a year and a day after the key's window opened: outside it.
        let late = f.now + 366 * 86_400
        let (p2, _) = try f.pay(
            try f.issuer.issue(100, to: f.alice.publicKey, now: late), from: f.alice, to: f.bob.publicKey, 100)
        #expect(
            verifyPayment([p2], try f.request(to: f.bob, 100, expiresIn: 400 * 86_400), now: late)
                == "issuer_key_outside_validity")
    }

    @Test func transferSignedByAnotherWalletIsRejected() throws {
        let note = try f.note(1_000, to: f.alice)
        let thief = SoftwareSigner()
        let stolen = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 1_000)], nonce: f.nonce(),
            createdAt: f.now, signer: thief)
        #expect(verifyPayment([note.appending(stolen, holding: 0)], try f.request(to: f.bob, 1_000)) == "signer_not_owner")
        let forged = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 1_000)], nonce: f.nonce(),
            createdAt: f.now, signer: Impostor(claimed: f.alice.publicKey, actual: thief))
        #expect(verifyPayment([note.appending(forged, holding: 0)], try f.request(to: f.bob, 1_000)) == "bad_owner_signature")
    }

    @Test func brokenLinksAreRejected() throws {
        let note = try f.note(1_000, to: f.alice)
        let other = try f.note(1_000, to: f.alice)
        let t = try Transfer.sign(
            input: other.heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 1_000)], nonce: f.nonce(),
            createdAt: f.now, signer: f.alice)
        #expect(verifyPayment([note.appending(t, holding: 0)], try f.request(to: f.bob, 1_000)) == "broken_chain")
    }

    @Test func valueMustBeConservedExactly() throws {
        let note = try f.note(1_000, to: f.alice)
        for outputs in [[600, 401], [600, 399], [999]] as [[UInt64]] {
            let t = try Transfer.sign(
                input: note.heldRef,
                outputs: outputs.enumerated().map {
                    TransferOutput(owner: $0.offset == 0 ? f.bob.publicKey : f.alice.publicKey, amount: $0.element)
                },
                nonce: f.nonce(), createdAt: f.now, signer: f.alice)
            #expect(verifyPayment([note.appending(t, holding: 0)], try f.request(to: f.bob, outputs[0])) == "value_not_conserved")
        }
    }

    @Test func zeroAndOverflowingAmountsAreRejected() throws {
        let zeroNote = try f.issuer.issue(0, to: f.alice.publicKey, now: f.now)
        let t0 = try Transfer.sign(
            input: zeroNote.heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 0)], nonce: f.nonce(),
            createdAt: f.now, signer: f.alice)
        #expect(verifyPayment([zeroNote.appending(t0, holding: 0)], try f.request(to: f.bob, 0)) == "zero_amount")

        let note = try f.note(1_000, to: f.alice)
        let zeroOut = try Transfer.sign(
            input: note.heldRef,
            outputs: [
                TransferOutput(owner: f.bob.publicKey, amount: 1_000), TransferOutput(owner: f.alice.publicKey, amount: 0),
            ],
            nonce: f.nonce(), createdAt: f.now, signer: f.alice)
        #expect(verifyPayment([note.appending(zeroOut, holding: 0)], try f.request(to: f.bob, 1_000)) == "zero_amount")

        let huge = try f.issuer.issue(UInt64.max, to: f.alice.publicKey, now: f.now)
        let (p, _) = try f.pay(huge, from: f.alice, to: f.bob.publicKey, 1)
        #expect(verifyPayment([p], try f.request(to: f.bob, 1)) == "amount_overflow")

        let max = try f.issuer.issue(Amount.max, to: f.alice.publicKey, now: f.now)
        let wrap = try Transfer.sign(
            input: max.heldRef,
            outputs: [
                TransferOutput(owner: f.bob.publicKey, amount: Amount.max),
                TransferOutput(owner: f.alice.publicKey, amount: Amount.max),
            ],
            nonce: f.nonce(), createdAt: f.now, signer: f.alice)
        #expect(verifyPayment([max.appending(wrap, holding: 0)], try f.request(to: f.bob, Amount.max)) == "amount_overflow")
    }

    @Test func expiredNotesAndRequestsAreRejected() throws {
        let short = try f.issuer.issue(100, to: f.alice.publicKey, now: f.now, lifetime: 60)
        let (p, _) = try f.pay(short, from: f.alice, to: f.bob.publicKey, 100)
        let request = try f.request(to: f.bob, 100, expiresIn: 600)
        #expect(verifyPayment([p], request, now: f.now + 59) == nil)
        #expect(verifyPayment([p], request, now: f.now + 60) == "note_expired")
        // Past the request's expiry the note's own expiry is what fails: the request's expiry
        // only bounds when the payer signs.
        #expect(verifyPayment([p], request, now: f.now + 600) == "note_expired")
    }

    /// protocol.md §5 step 1: a payment signed before the request expired is accepted however
    /// late it arrives (nothing strands); one signed at or after the expiry is refused.
    @Test func requestExpiryBoundsSigningNotDelivery() throws {
        let note = try f.issuer.issue(500, to: f.alice.publicKey, now: f.now)
        let request = try f.request(to: f.bob, 500, expiresIn: 600)
        let inTime = note.appending(
            try Transfer.sign(
                input: note.heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 500)], nonce: request.nonce,
                createdAt: request.expiresAt - 1, signer: f.alice),
            holding: 0)
        #expect(verifyPayment([inTime], request, now: request.expiresAt + 3_600) == nil)
        let late = note.appending(
            try Transfer.sign(
                input: note.heldRef, outputs: [TransferOutput(owner: f.bob.publicKey, amount: 500)], nonce: request.nonce,
                createdAt: request.expiresAt, signer: f.alice),
            holding: 0)
        #expect(verifyPayment([late], request, now: f.now) == "request_expired")
    }

    @Test func chainsLongerThanTheLimitAreRejected() throws {
        let chain = try f.chain(hops: 5, payee: f.bob, nonce: f.nonce())
        #expect(verifyPayment([chain], try f.request(to: f.bob, chain.heldOutput!.amount)) == "too_many_hops")
    }

    @Test func paymentsMustMatchTheRequest() throws {
        let (p, _) = try f.pay(try f.note(1_000, to: f.alice), from: f.alice, to: f.bob.publicKey, 400)
        #expect(verifyPayment([p], try f.request(to: f.carol, 400)) == "wrong_recipient")
        #expect(verifyPayment([p], try f.request(to: f.bob, 401)) == "wrong_amount")
        #expect(verifyPayment([p], try f.request(to: f.bob, 400, nonce: f.nonce(8))) == "nonce_mismatch")
        let usd = try PaymentRequest(
            payee: f.bob.publicKey, currency: Currency("USD")!, amount: 400, nonce: f.nonce(), expiresAt: f.now + 60)
        #expect(verifyPayment([p], usd) == "wrong_currency")
        // The payee's change output is not the paid output.
        #expect(verifyPayment([p.holding(1)], try f.request(to: f.bob, 600)) == "malformed")
        // A chain with no transfer pays nobody.
        #expect(verifyPayment([try f.note(1_000, to: f.bob)], try f.request(to: f.bob, 1_000)) == "malformed")
    }

    @Test func replaysAndDuplicatesAreRejected() throws {
        let (p, _) = try f.pay(try f.note(1_000, to: f.alice), from: f.alice, to: f.bob.publicKey, 400)
        let request = try f.request(to: f.bob, 800)
        #expect(verifyPayment([p, p], request) == "duplicate_payment")
        let single = try f.request(to: f.bob, 400)
        let seen = p.heldRef
        #expect(
            VerificationError.code {
                try f.verifier.verifyPayment(PaymentBundle(chains: [p]), request: single, now: f.now) { $0 == seen }
            } == "duplicate_payment")
    }

    @Test func doubleSpendInsideOneBundleYieldsAProofNamingTheSigner() throws {
        let note = try f.note(1_000, to: f.alice)
        let first = try f.pay(note, from: f.alice, to: f.bob.publicKey, 400).payment
        let second = try f.pay(note, from: f.alice, to: f.bob.publicKey, 300).payment
        let bundle = try PaymentBundle(chains: [first, second])
        let request = try f.request(to: f.bob, 700)
        do {
            _ = try f.verifier.verifyPayment(bundle, request: request, now: f.now)
            Issue.record("double spend accepted")
        } catch {
            guard case .doubleSpend(let proof) = error else {
                Issue.record("expected double_spend, got \(error.code)")
                return
            }
            #expect(proof.cheater == f.alice.publicKey)
            #expect(try f.verifier.verify(proof, now: f.now + 10 * 365 * 86_400) == f.alice.publicKey)
        }
    }

    @Test func fraudProofsRequireTwoDifferentValidTransfers() throws {
        let note = try f.note(1_000, to: f.alice)
        let a = try f.pay(note, from: f.alice, to: f.bob.publicKey, 400).payment.transfers[0]
        let b = try f.pay(note, from: f.alice, to: f.carol.publicKey, 400).payment.transfers[0]
        #expect(
            VerificationError.code { try f.verifier.verify(FraudProof(chain: note, first: a, second: a), now: f.now) }
                == "malformed")
        let forgedB = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: f.carol.publicKey, amount: 1_000)], nonce: f.nonce(),
            createdAt: f.now, signer: Impostor(claimed: f.alice.publicKey, actual: f.carol))
        #expect(
            VerificationError.code { try f.verifier.verify(FraudProof(chain: note, first: a, second: forgedB), now: f.now) }
                == "bad_owner_signature")
        #expect(try f.verifier.verify(FraudProof(chain: note, first: a, second: b), now: f.now) == f.alice.publicKey)
    }

    /// A receipt counts only for its payee, its request (nonce), its payment, its amount and
    /// currency, and only with the payee's real signature; each mismatch says which.
    @Test func receiptsBindPayeeNoncePaymentAndAmount() throws {
        let (p, _) = try f.pay(try f.note(1_000, to: f.alice), from: f.alice, to: f.bob.publicKey, 400)
        let request = try f.request(to: f.bob, 400)
        let id = try PaymentBundle(chains: [p]).paymentID!
        func receipt(
            nonce: Nonce? = nil, currency: Currency? = nil, amount: UInt64 = 400, payee: some MessageSigner
        ) throws -> Receipt {
            try Receipt.sign(
                paymentID: id, nonce: nonce ?? request.nonce, currency: currency ?? f.eur, amount: amount, receivedAt: f.now,
                payee: payee)
        }
        let good = try receipt(payee: f.bob)
        try good.verify(for: request, paymentID: id, amount: 400)
        #expect(throws: VerificationError.badReceipt("signed by another key than the payee's")) {
            try receipt(payee: f.carol).verify(for: request, paymentID: id, amount: 400)
        }
        #expect(throws: VerificationError.badReceipt("signature is invalid")) {
            try receipt(payee: Impostor(claimed: f.bob.publicKey, actual: f.carol)).verify(
                for: request, paymentID: id, amount: 400)
        }
        #expect(throws: VerificationError.badReceipt("for another request")) {
            try receipt(nonce: f.nonce(8), payee: f.bob).verify(for: request, paymentID: id, amount: 400)
        }
        #expect(throws: VerificationError.badReceipt("for another payment")) {
            try good.verify(for: request, paymentID: ProtocolHash.sha256([]), amount: 400)
        }
        for (amount, currency) in [(UInt64(399), f.eur), (401, f.eur), (400, Currency("USD")!)] {
            #expect(
                throws: VerificationError.badReceipt("amount or currency differs from the payment"), "\(amount) \(currency.code)"
            ) {
                try receipt(currency: currency, amount: amount, payee: f.bob).verify(for: request, paymentID: id, amount: 400)
            }
        }
        // The payer's own record of the amount counts, not the receipt's claim.
        #expect(throws: VerificationError.badReceipt("amount or currency differs from the payment")) {
            try good.verify(for: request, paymentID: id, amount: 500)
        }
    }

    /// DESIGN §2.7: any single-byte change to a valid bundle is rejected.
    @Test func everySingleByteChangeToABundleIsRejected() async throws {
        let (payment, _) = try f.pay(try f.chain(hops: 2, payee: f.bob), from: f.bob, to: f.carol.publicKey, 5_000)
        let request = try f.request(to: f.carol, 5_000)
        let valid = try PaymentBundle(chains: [payment]).encoded
        _ = try f.verifier.verifyPayment(valid, request: request, now: f.now)
        // Every position with a one-bit flip, exhaustively…
        for position in valid.indices {
            var bytes = valid
            bytes[position] ^= 0x01
            #expect(
                VerificationError.code { try f.verifier.verifyPayment(bytes, request: request, now: f.now) } != nil,
                "byte \(position)")
        }
        // …and random replacement values at random positions.
        await propertyCheck(count: 300, input: Gen.int(in: 0...(valid.count - 1)), Gen.uint8(in: 1...255)) { position, mask in
            var bytes = valid
            bytes[position] ^= mask
            #expect(VerificationError.code { try f.verifier.verifyPayment(bytes, request: request, now: f.now) } != nil)
        }
    }

    @Test func everyTruncationIsRejected() throws {
        let (payment, _) = try f.pay(try f.note(1_000, to: f.alice), from: f.alice, to: f.bob.publicKey, 400)
        let valid = try PaymentBundle(chains: [payment]).encoded
        let request = try f.request(to: f.bob, 400)
        for length in 0..<valid.count {
            let code = VerificationError.code {
                try f.verifier.verifyPayment(Array(valid.prefix(length)), request: request, now: f.now)
            }
            #expect(code == "truncated", "prefix of \(length) bytes gave \(code ?? "success")")
        }
    }
}
