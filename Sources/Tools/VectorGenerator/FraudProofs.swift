import OfflineNotes

extension Fixtures {
    /// `fraud-proofs.json`: fraud proofs (§7), valid and invalid, with what the issuer answers
    /// to each.
    func fraudProofVectors(_ shared: SharedChains) throws -> [String: Any] {
        let (aliceNote, heldOnce, passedOn, fiveHop) = (shared.aliceNote, shared.heldOnce, shared.passedOn, shared.fiveHop)
        let (twins, viaTwin0, viaTwin1) = (shared.twins, shared.viaTwin0, shared.viaTwin1)
        let spendA = shared.oneHop.transfers[0], spendB = shared.spendAgain.transfers[0]
        var cases = FraudProofCases(now: now)
        cases.add(
            "ok", "alice's note spent to bob twice with different splits", aliceNote, spendA, spendB, expect: "ok", cheater: alice
        )
        let shortNote = try note(3_000, to: alice, id: 23, lifetime: 100)
        cases.add(
            "ok_after_expiry", "checked ten days after the note expired: expiry is not a fraud-proof check", shortNote,
            try signTransfer(shortNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
            try signTransfer(shortNote.heldRef, by: alice, [(carol, 3_000)], nonce: nonce(0xC1)),
            now: now + 10 * 86_400, expect: "ok", cheater: alice)
        let bobsState = heldOnce
        cases.add(
            "ok_middle_of_chain",
            "bob, holding the output of alice's transfer, spends it to carol and to mallory: bob is named, not alice", bobsState,
            passedOn.transfers[1], try signTransfer(bobsState.heldRef, by: bob, [(mallory, 4_000)], nonce: nonce(0x62)),
            expect: "ok",
            cheater: bob)
        cases.add(
            "ok_non_held_output",
            """
            the proving chain holds output 0 of two identical outputs, both transfers spend output 1: the chain's held_index \
            is not used
            """,
            twins, viaTwin1.transfers[1],
            try signTransfer(twins.holding(1).heldRef, by: carol, [(mallory, 1_000)], nonce: nonce(0x63)),
            expect: "ok", cheater: carol)
        cases.add("same_transfer", "first and second are the same bytes", aliceNote, spendA, spendA, expect: "malformed")
        cases.add(
            "same_transfer_other_signature",
            "the same transfer body signed again (another ECDSA signature): one transfer hash, no double spend",
            aliceNote, spendA,
            try signTransfer(aliceNote.heldRef, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1)),
            expect: "malformed")
        let strangerNote = Chain(
            note: try IssuedNote.issue(
                noteID: noteID(24), currency: eur, amount: 3_000, owner: alice.publicKey, issuedAt: now, expiresAt: now + 86_400,
                issuer: stranger.issuingKey))
        cases.add(
            "chain_unknown_issuer_key", "the proving chain's note is from another issuer", strangerNote,
            try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
            try signTransfer(strangerNote.heldRef, by: alice, [(carol, 3_000)], nonce: nonce(0xC1)), expect: "unknown_issuer_key")
        let forgedNote = try note(3_000, to: alice, id: 25, by: Impostor(claimed: issuingKey.publicKey, actual: mallory))
        cases.add(
            "chain_bad_issuer_signature", "the proving chain's note is forged under the issuer's key id", forgedNote,
            try signTransfer(forgedNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
            try signTransfer(forgedNote.heldRef, by: alice, [(carol, 3_000)], nonce: nonce(0xC1)), expect: "bad_issuer_signature")
        let otherNote = try note(10_000, to: alice, id: 8)
        cases.add(
            "first_spends_another_state", "first spends another note's state (signed by its owner)", aliceNote,
            try signTransfer(otherNote.heldRef, by: alice, [(bob, 10_000)], nonce: nonce(0xB1)), spendB, expect: "broken_chain")
        cases.add(
            "second_spends_another_state", "second spends another note's state", aliceNote, spendA,
            try signTransfer(otherNote.heldRef, by: alice, [(bob, 10_000)], nonce: nonce(0xB1)), expect: "broken_chain")
        cases.add(
            "different_inputs",
            "first spends output 0, second output 1 of two identical outputs: each is a valid spend, of different states",
            twins, viaTwin0.transfers[1], viaTwin1.transfers[1], expect: "malformed")
        cases.add(
            "first_bad_signature", "first claims alice's key id but mallory signed it", aliceNote,
            try signTransfer(
                aliceNote.heldRef, by: Impostor(claimed: alice.publicKey, actual: mallory), [(mallory, 10_000)],
                nonce: nonce(0x6D)), spendB,
            expect: "bad_owner_signature")
        cases.add(
            "second_bad_signature", "second claims alice's key id but mallory signed it", aliceNote, spendA,
            try signTransfer(
                aliceNote.heldRef, by: Impostor(claimed: alice.publicKey, actual: mallory), [(mallory, 10_000)],
                nonce: nonce(0x6D)),
            expect: "bad_owner_signature")
        cases.add(
            "second_signer_not_owner", "mallory signs alice's state under her own key id", aliceNote, spendA,
            try signTransfer(aliceNote.heldRef, by: mallory, [(mallory, 10_000)], nonce: nonce(0x6D)), expect: "signer_not_owner")
        cases.add(
            "second_value_not_conserved", "alice signs a second transfer whose outputs exceed the note: checked like any hop",
            aliceNote, spendA,
            try signTransfer(aliceNote.heldRef, by: alice, [(bob, 10_001)], nonce: nonce(0xB2)), expect: "value_not_conserved")
        let fourHops = Chain(note: fiveHop.note, transfers: Array(fiveHop.transfers.prefix(4)), heldIndex: 0)
        cases.add(
            "too_many_hops", "the proving chain has max_hops (4) transfers: a fifth is beyond the limit", fourHops,
            fiveHop.transfers[4],
            try signTransfer(fourHops.heldRef, by: alice, [(carol, 5_000)], nonce: nonce(0x64)), expect: "too_many_hops")
        cases.add(
            "order_same_transfer_before_chain",
            "same transfer twice and a note from another issuer: the equality check comes first",
            strangerNote,
            try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
            try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)), expect: "malformed")
        cases.add(
            "order_signature_before_inputs",
            "different inputs and a bad second signature: signatures are checked before the inputs are compared",
            twins, viaTwin0.transfers[1],
            try signTransfer(
                twins.holding(1).heldRef, by: Impostor(claimed: carol.publicKey, actual: mallory), [(mallory, 1_000)],
                nonce: nonce(0x65)),
            expect: "bad_owner_signature")
        // §7: chain, first and second are decoded in that order, all before check 1.
        var secondVersionTwo = spendB.encoded
        secondVersionTwo[1] = 2
        cases.add(
            "order_decoding_chain_first",
            """
            the chain cut short, first with a trailing byte, second the same bytes as first: the chain is decoded first, \
            before check 1
            """,
            bytes: (Array(aliceNote.encoded.dropLast()), spendA.encoded + [0], spendA.encoded + [0]), expect: "truncated")
        cases.add(
            "order_decoding_first_before_second", "first cut short, second of version 2: first is decoded before second",
            bytes: (aliceNote.encoded, Array(spendA.encoded.dropLast()), secondVersionTwo), expect: "truncated")
        cases.add(
            "order_decoding_before_checks",
            "a chain from another issuer, first valid for it, second cut short: every part is decoded before check 2",
            bytes: (
                strangerNote.encoded,
                try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)).encoded,
                Array(spendB.encoded.dropLast())
            ), expect: "truncated")
        return [
            "comment": """
            Fraud proofs (docs/protocol.md §7): 'chain' is a standalone chain (type 0x03), 'first' and 'second' transfers. \
            Check at 'now' with the keyset and limits of messages.json. 'expect' is 'ok' (then 'cheater' is the key that \
            signed both) or the error code of §6. 'issuer' is what POST /v1/fraud-proofs answers: HTTP status and problem \
            code (and field).
            """,
            "cases": cases.list,
        ]
    }

    /// A transfer of `input`, signed by `signer`, created at `createdAt` (default a minute after
    /// `now`), standing alone: the second spends of the proofs.
    private func signTransfer(
        _ input: StateRef, by signer: any MessageSigner, _ outputs: [(SoftwareSigner, UInt64)], nonce: Nonce,
        createdAt: Timestamp? = nil
    ) throws -> Transfer {
        try Transfer.sign(
            input: input, outputs: outputs.map { TransferOutput(owner: $0.0.publicKey, amount: $0.1) }, nonce: nonce,
            createdAt: createdAt ?? now + 60, signer: signer)
    }
}

/// The cases of `fraud-proofs.json`, in the order they are added: (chain, first, second) checked
/// at `now` with `messages.json`'s keyset and limits.
private struct FraudProofCases {
    /// The checker's clock of a case that gives none.
    let now: Timestamp
    private(set) var list: [[String: Any]] = []

    mutating func add(
        _ name: String, _ why: String, _ chain: Chain, _ first: Transfer, _ second: Transfer, now at: Timestamp? = nil,
        expect: String, cheater: SoftwareSigner? = nil
    ) {
        add(name, why, bytes: (chain.encoded, first.encoded, second.encoded), now: at, expect: expect, cheater: cheater)
    }

    /// A proof given as bytes, which need not decode.
    mutating func add(
        _ name: String, _ why: String, bytes: (chain: [UInt8], first: [UInt8], second: [UInt8]), now at: Timestamp? = nil,
        expect: String, cheater: SoftwareSigner? = nil
    ) {
        var fields: [String: Any] = [
            "name": name, "description": why, "now": at ?? now, "chain": hex(bytes.chain), "first": hex(bytes.first),
            "second": hex(bytes.second), "expect": expect,
        ]
        if let cheater { fields["cheater"] = cheater.publicKey.hex }
        // What the issuer answers to POST /v1/fraud-proofs with this proof (§7).
        switch expect {
        case "ok": fields["issuer"] = ["status": 200]
        case "malformed" where name.hasPrefix("same_") || name.hasPrefix("different_inputs") || name.hasPrefix("order_same"):
            fields["issuer"] = ["status": 400, "code": "invalid_field", "field": "second"]
        default: fields["issuer"] = ["status": 400, "code": expect]
        }
        list.append(fields)
    }
}
