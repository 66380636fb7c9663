import Crypto

/// Verifies chains and payment bundles offline against a keyset and limits
/// (`docs/protocol.md` §5). Pure: time comes in as an argument, nothing is stored.
///
/// Verification runs in two phases so that hostile input is cheap to reject: phase 1
/// checks structure, linkage, arithmetic and the request without any signature; phase 2
/// checks signatures.
///
/// ## Example
///
/// ```swift
/// let verifier = NoteVerifier(
///     keyset: try Keyset(decoding: keysetBytes, authority: authority),
///     limits: try Limits(decoding: limitsBytes, authority: authority))
/// do {
///     let payment = try verifier.verifyPayment(bundleBytes, request: request, now: now)
///     print("verified", payment.amount)
/// } catch {
///     print("refused:", error.code)   // the code docs/protocol.md §6 names
/// }
/// ```
public struct NoteVerifier: Sendable {
    public let keyset: Keyset
    public let limits: Limits
    /// Owner keys already decompressed; share one cache between verifiers for the best speed.
    public let keyCache: PublicKeyCache

    /// `keyset` and `limits` must come from `init(decoding:authority:)` or `sign`.
    public init(keyset: Keyset, limits: Limits, keyCache: PublicKeyCache = PublicKeyCache()) {
        self.keyset = keyset
        self.limits = limits
        self.keyCache = keyCache
    }

    // MARK: Chains

    /// Verifies a chain and returns the state it proves.
    /// - Parameters:
    ///   - chain: a chain decoded from the wire (or built from verified parts).
    ///   - now: the current time, seconds since 1970.
    ///   - checkExpiry: false when judging old chains online (redemption in the grace period,
    ///     fraud proofs); offline receipt always checks expiry.
    public func verify(
        _ chain: Chain, now: Timestamp, checkExpiry: Bool = true
    ) throws(VerificationError)
        -> VerifiedState
    {
        let state = try checkStructure(chain, now: now, checkExpiry: checkExpiry)
        try checkSignatures(state)
        return state
    }

    /// Decodes a standalone chain and verifies it.
    public func verifyChain(
        _ bytes: [UInt8], now: Timestamp, checkExpiry: Bool = true
    ) throws(VerificationError)
        -> VerifiedState
    {
        try verify(Chain(decoding: bytes), now: now, checkExpiry: checkExpiry)
    }

    /// Phase 1 for one chain: everything but signatures.
    func checkStructure(
        _ chain: Chain, now: Timestamp, checkExpiry: Bool
    ) throws(VerificationError)
        -> VerifiedState
    {
        let note = chain.note
        guard chain.hops <= limits.maxHops else {
            throw .tooManyHops(hops: chain.hops, limit: limits.maxHops)
        }
        guard note.amount > 0 else { throw .zeroAmount }
        guard note.amount <= Amount.max else { throw .amountOverflow }
        // A note in another currency can never be honest for this issuer (§5.1 step 2).
        guard note.currency == limits.currency else {
            throw .wrongCurrency(expected: limits.currency, found: note.currency)
        }
        guard note.expiresAt > note.issuedAt else { throw .malformed("expires_at must be after issued_at") }
        if checkExpiry && now >= note.expiresAt { throw .noteExpired(expiresAt: note.expiresAt) }
        guard let issuerKey = keyset.key(note.issuerKeyID) else { throw .unknownIssuerKey(note.issuerKeyID) }
        guard issuerKey.validFrom <= note.issuedAt, note.issuedAt < issuerKey.validUntil else {
            throw .issuerKeyOutsideValidity(note.issuerKeyID)
        }

        var ref = note.stateRef
        var owner = note.owner
        var amount = note.amount
        var spends: [SpendEdge] = []
        spends.reserveCapacity(chain.hops)
        for (hop, transfer) in chain.transfers.enumerated() {
            guard transfer.input == ref else { throw .brokenChain(hop: hop) }
            guard transfer.signerKeyID == owner.keyID else { throw .signerNotOwner(hop: hop) }
            guard transfer.outputs.allSatisfy({ $0.amount > 0 }) else { throw .zeroAmount }
            guard let total = Amount.sum(transfer.outputs.lazy.map(\.amount)) else { throw .amountOverflow }
            guard total == amount else { throw .valueNotConserved(hop: hop, input: amount, outputs: total) }
            spends.append(SpendEdge(state: ref, owner: owner, transfer: transfer, hop: hop))

            // Which output does the chain continue with?
            let index: Int
            if hop + 1 < chain.hops {
                let next = chain.transfers[hop + 1].input
                guard let i = transfer.outputs.indices.first(where: { transfer.outputRef($0) == next }) else {
                    throw .brokenChain(hop: hop + 1)
                }
                index = i
            } else {
                index = Int(chain.heldIndex)
                guard index < transfer.outputs.count else {
                    throw .malformed("held index \(index) is past the last transfer's outputs")
                }
            }
            ref = transfer.outputRef(index)
            owner = transfer.outputs[index].owner
            amount = transfer.outputs[index].amount
        }
        // Decoding already refuses this (§4.3); a chain built in code must not slip past it.
        if chain.hops == 0 && chain.heldIndex != 0 {
            throw .malformed("a chain without transfers must hold index 0")
        }
        return VerifiedState(
            ref: ref, owner: owner, amount: amount, currency: note.currency, noteID: note.noteID,
            issuedAt: note.issuedAt, expiresAt: note.expiresAt, chain: chain, spends: spends)
    }

    /// Phase 2 for one chain: the issuer signature, then each owner signature in order.
    func checkSignatures(_ state: VerifiedState) throws(VerificationError) {
        try checkIssuerSignature(state.chain.note)
        try checkOwnerSignatures(state)
    }

    /// Phase 2's first check: the note's signature with its issuing key.
    func checkIssuerSignature(_ note: IssuedNote) throws(VerificationError) {
        guard let issuerKey = keyset.parsedKey(note.issuerKeyID) else { throw .unknownIssuerKey(note.issuerKeyID) }
        guard SignatureCheck.isValid(note.signature, context: .issuedNote, body: note.body, key: issuerKey) else {
            throw .badIssuerSignature
        }
    }

    /// Phase 2 after the issuer signature: each transfer's signature, in order.
    func checkOwnerSignatures(_ state: VerifiedState) throws(VerificationError) {
        for edge in state.spends {
            // An owner key that is not a valid point can never have signed anything.
            guard let key = keyCache.key(for: edge.owner),
                SignatureCheck.isValid(edge.transfer.signature, context: .transfer, body: edge.transfer.body, key: key)
            else { throw .badOwnerSignature(hop: edge.hop) }
        }
    }

    // MARK: Payments

    /// Verifies a payment bundle against the payee's request.
    ///
    /// - Parameters:
    ///   - bytes: the encoded ``PaymentBundle`` as it arrived.
    ///   - request: the payee's own request the payment answers.
    ///   - now: the current time, seconds since 1970.
    ///   - isKnownState: true for a state the payee already holds or has seen received;
    ///     such a payment is a replay (`duplicatePayment`).
    public func verifyPayment(
        _ bytes: [UInt8], request: PaymentRequest, now: Timestamp,
        isKnownState: (StateRef) -> Bool = { _ in false }
    ) throws(VerificationError) -> VerifiedPayment {
        let bundle = try PaymentBundle(decoding: bytes)
        return try verifyPayment(bundle, request: request, now: now, isKnownState: isKnownState)
    }

    /// Verifies an already decoded payment bundle against the payee's request; the same checks
    /// as the overload that decodes the bytes first.
    public func verifyPayment(
        _ bundle: PaymentBundle, request: PaymentRequest, now: Timestamp,
        isKnownState: (StateRef) -> Bool = { _ in false }
    ) throws(VerificationError) -> VerifiedPayment {
        // The request's expiry bounds when the payer may sign, not when the payment may arrive:
        // a payment signed in time is accepted however late it is delivered, so value signed
        // to the payee is never stranded (docs/protocol.md §5, step 1).
        for chain in bundle.chains {
            if let last = chain.transfers.last, last.createdAt >= request.expiresAt {
                throw .requestExpired(expiresAt: request.expiresAt)
            }
        }

        var received: [VerifiedState] = []
        var spentBy: [StateRef: Transfer] = [:]
        var heldRefs = Set<StateRef>()
        for chain in bundle.chains {
            guard let last = chain.transfers.last else {
                throw .malformed("every chain of a payment must end with a transfer to the payee")
            }
            let state = try checkStructure(chain, now: now, checkExpiry: true)
            guard state.currency == request.currency else {
                throw .wrongCurrency(expected: request.currency, found: state.currency)
            }
            guard chain.heldIndex == 0 else { throw .malformed("a payment chain must hold output 0") }
            guard last.nonce == request.nonce else { throw .nonceMismatch }
            guard state.owner == request.payee else { throw .wrongRecipient }
            // Step 7: a state "appeared" in an earlier chain when that chain holds it or one of its
            // transfers spends it; either way its value is already in this bundle (or spent).
            guard !heldRefs.contains(state.ref), spentBy[state.ref] == nil, !isKnownState(state.ref) else {
                throw .duplicatePayment
            }
            for edge in state.spends {
                // Step 8: spending what an earlier chain of this bundle pays the payee would
                // count that value twice (once held, once passed on).
                guard !heldRefs.contains(edge.state) else { throw .duplicatePayment }
                if let earlier = spentBy[edge.state] {
                    guard earlier.hash == edge.transfer.hash else {
                        // Evidence only once it is a valid proof (§7, signatures included): a
                        // payer forging the second spend must not make the payee keep (and keep
                        // failing to report) a "proof" naming someone who signed nothing.
                        let proof = FraudProof(chain: chain.proving(edge), first: earlier, second: edge.transfer)
                        _ = try verify(proof, now: now)
                        throw .doubleSpend(proof)
                    }
                } else {
                    spentBy[edge.state] = edge.transfer
                }
            }
            heldRefs.insert(state.ref)
            received.append(state)
        }
        guard let total = Amount.sum(received.map(\.amount)) else { throw .amountOverflow }
        if !request.isOpenAmount && total != request.amount {
            throw .wrongAmount(expected: request.amount, found: total)
        }

        for state in received { try checkSignatures(state) }

        guard let paymentID = bundle.paymentID else { throw .malformed("payment without transfers") }
        return VerifiedPayment(
            paymentID: paymentID, nonce: request.nonce, currency: request.currency, amount: total,
            received: received, bundle: bundle)
    }
}

extension NoteVerifier {
    /// Checks a fraud proof (docs/protocol.md §7) and returns the key that double-signed.
    /// Expiry is not checked: a double spend stays provable after the note expires.
    ///
    /// The order of the checks is the spec's, and the issuer's (which answers the first and
    /// last with `invalid_field`): the two transfers must differ; the proving chain extended
    /// by each transfer must pass §5.1 and its signatures (so each transfer is checked like any
    /// hop: signer, outputs, value, hop limit, owner signature); both must spend one state.
    /// The extended chains are verified as values, never re-encoded: a proving chain of 255
    /// transfers plus one has no encoding (`hop_count` is one byte).
    public func verify(_ proof: FraudProof, now: Timestamp) throws(VerificationError) -> PublicKeyBytes {
        guard proof.first.hash != proof.second.hash else {
            throw .malformed("fraud proof holds the same transfer twice")
        }
        let first = try verify(proof.chain.appending(proof.first, holding: 0), now: now, checkExpiry: false)
        _ = try verify(proof.chain.appending(proof.second, holding: 0), now: now, checkExpiry: false)
        guard proof.first.input == proof.second.input, let spent = first.spends.last else {
            throw .malformed("fraud proof transfers do not spend the same state")
        }
        return spent.owner
    }
}
