import OfflineNotes

extension Fixtures {
    /// `verification.json`: payment bundles verified against requests (§5), each with the error
    /// code of §6 it must give, or `ok` and the amount.
    func verificationVectors(_ shared: SharedChains) throws -> [String: Any] {
        var cases = VerificationCases(now: now)
        try addCheckCases(to: &cases, shared)
        try addSpecPointCases(to: &cases, shared)
        return [
            "comment": """
            Verify each bundle against its request with the keyset and limits of messages.json, at 'now'. 'expect' is 'ok' \
            or the error code of docs/protocol.md §6.
            """,
            "cases": cases.list,
        ]
    }

    /// The checks of §5 one at a time: the valid payments, then a case for each error code.
    private func addCheckCases(to cases: inout VerificationCases, _ shared: SharedChains) throws {
        let (aliceNote, oneHop, threeHop, fiveHop) = (shared.aliceNote, shared.oneHop, shared.threeHop, shared.fiveHop)
        let (spendAgain, heldOnce, passedOn) = (shared.spendAgain, shared.heldOnce, shared.passedOn)
        let bobsRequest = shared.bobsRequest
        let oneHopBundle = shared.oneHopBundle.encoded
        cases.add(
            "ok_1hop", "alice pays bob 30.00 from a 100.00 note, 70.00 change", oneHopBundle, bobsRequest, expect: "ok",
            amount: 3_000)
        cases.add(
            "ok_3hop", "alice → carol → alice → bob", try bundleBytes(threeHop), try request(bob, 2_500, nonce(0xB3)),
            expect: "ok", amount: 2_500)
        let wholeNote = try transfer(try note(1_000, to: alice, id: 3), by: alice, [(bob, 1_000)], nonce: nonce(0xB4))
        let withChange = try transfer(
            try note(2_000, to: alice, id: 4), by: alice, [(bob, 500), (alice, 1_500)], nonce: nonce(0xB4))
        cases.add(
            "ok_two_notes", "two chains, one exact and one with change", try bundleBytes(wholeNote, withChange),
            try request(bob, 1_500, nonce(0xB4)),
            expect: "ok", amount: 1_500)
        cases.add(
            "ok_open_amount", "request with amount 0: payer chooses", oneHopBundle, try request(bob, 0, nonce(0xB1)),
            expect: "ok",
            amount: 3_000)
        cases.add("truncated", "last byte missing", Array(oneHopBundle.dropLast()), bobsRequest, expect: "truncated")
        cases.add("trailing_byte", "one byte too many", oneHopBundle + [0], bobsRequest, expect: "malformed")
        var versionTwo = oneHopBundle
        versionTwo[1] = 2
        cases.add("unsupported_version", "bundle version 2", versionTwo, bobsRequest, expect: "unsupported_version")
        var noteTypeByte = oneHopBundle
        noteTypeByte[0] = 0x01
        cases.add(
            "unexpected_message_type", "a note where a bundle belongs", noteTypeByte, bobsRequest,
            expect: "unexpected_message_type")
        cases.add(
            "unknown_issuer_key", "note signed by another issuer",
            try bundleBytes(
                try transfer(
                    Chain(
                        note: try IssuedNote.issue(
                            noteID: noteID(5), currency: eur, amount: 3_000, owner: alice.publicKey, issuedAt: now,
                            expiresAt: now + 86_400,
                            issuer: stranger.issuingKey)), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))), bobsRequest,
            expect: "unknown_issuer_key")
        cases.add(
            "issuer_key_outside_validity", "issued two days before the key's window opened",
            try bundleBytes(
                try transfer(
                    try note(3_000, to: alice, id: 6, issuedAt: now - 2 * 86_400), by: alice, [(bob, 3_000)],
                    nonce: nonce(0xB1))),
            bobsRequest, expect: "issuer_key_outside_validity")
        cases.add(
            "bad_issuer_signature", "note signed by mallory under the issuer's key id",
            try bundleBytes(
                try transfer(
                    try note(3_000, to: alice, id: 7, by: Impostor(claimed: issuingKey.publicKey, actual: mallory)), by: alice,
                    [(bob, 3_000)], nonce: nonce(0xB1))), bobsRequest, expect: "bad_issuer_signature")
        cases.add(
            "signer_not_owner", "mallory signs alice's note with her own key",
            try bundleBytes(try transfer(aliceNote, by: mallory, [(bob, 3_000), (mallory, 7_000)], nonce: nonce(0xB1))),
            bobsRequest,
            expect: "signer_not_owner")
        cases.add(
            "bad_owner_signature", "mallory signs alice's note claiming alice's key id",
            try bundleBytes(
                try transfer(
                    aliceNote, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 3_000), (mallory, 7_000)],
                    nonce: nonce(0xB1))),
            bobsRequest, expect: "bad_owner_signature")
        cases.add(
            "broken_chain", "transfer input is another note's state",
            try bundleBytes(
                try transfer(
                    aliceNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1),
                    input: try note(10_000, to: alice, id: 8).heldRef)),
            bobsRequest, expect: "broken_chain")
        cases.add(
            "value_not_conserved", "outputs sum to 100.01 from a 100.00 note",
            try bundleBytes(try transfer(aliceNote, by: alice, [(bob, 3_000), (alice, 7_001)], nonce: nonce(0xB1))), bobsRequest,
            expect: "value_not_conserved")
        cases.add(
            "zero_amount", "an output of zero",
            try bundleBytes(try transfer(aliceNote, by: alice, [(bob, 3_000), (alice, 7_000), (carol, 0)], nonce: nonce(0xB1))),
            bobsRequest,
            expect: "zero_amount")
        cases.add(
            "amount_overflow", "note amount above 2^63-1",
            try bundleBytes(
                try transfer(
                    try note(UInt64(Int64.max) + 1, to: alice, id: 9), by: alice,
                    [(bob, 3_000), (alice, UInt64(Int64.max) - 2_999)],
                    nonce: nonce(0xB1))), bobsRequest, expect: "amount_overflow")
        cases.add(
            "note_expired", "verified one second after the note's expiry",
            try bundleBytes(
                try transfer(try note(3_000, to: alice, id: 10, lifetime: 100), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
            bobsRequest, now: now + 101, expect: "note_expired")
        cases.add(
            "too_many_hops", "five transfers; limits allow four", try bundleBytes(fiveHop), try request(bob, 5_000, nonce(0xB5)),
            expect: "too_many_hops")
        cases.add(
            "wrong_currency", "request in USD", oneHopBundle,
            try request(bob, 3_000, nonce(0xB1), currency: usd), expect: "wrong_currency")
        cases.add(
            "wrong_recipient", "request from carol", oneHopBundle, try request(carol, 3_000, nonce(0xB1)),
            expect: "wrong_recipient")
        cases.add("wrong_amount", "request for 30.01", oneHopBundle, try request(bob, 3_001, nonce(0xB1)), expect: "wrong_amount")
        cases.add(
            "nonce_mismatch", "bundle answers another request", oneHopBundle, try request(bob, 3_000, nonce(0xEE)),
            expect: "nonce_mismatch")
        cases.add(
            "request_expired", "signed at the request's expiry",
            try bundleBytes(
                try transfer(
                    aliceNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), createdAt: bobsRequest.expiresAt)),
            bobsRequest, expect: "request_expired")
        cases.add(
            "ok_delivered_late", "signed before the request's expiry, verified after it", oneHopBundle, bobsRequest,
            now: bobsRequest.expiresAt + 60, expect: "ok", amount: 3_000)
        cases.add(
            "duplicate_payment", "the same chain twice", try bundleBytes(oneHop, oneHop), try request(bob, 6_000, nonce(0xB1)),
            expect: "duplicate_payment")
        cases.add(
            "double_spend", "alice's note spent by two different transfers in one bundle", try bundleBytes(oneHop, spendAgain),
            try request(bob, 5_000, nonce(0xB1)), expect: "double_spend")
        // One note paid to bob twice in one bundle: held by the first chain, and passed on by bob
        // (to carol, who pays him back) in the second. Counted twice unless a chain may not spend what
        // an earlier chain holds (step 8), nor hold what an earlier chain spends (step 7).
        cases.add(
            "duplicate_payment_held_then_spent", "the first chain holds bob's state, the second spends it and comes back to bob",
            try bundleBytes(heldOnce, passedOn), try request(bob, 8_000, nonce(0xB6)), expect: "duplicate_payment")
        cases.add(
            "duplicate_payment_spent_then_held", "the first chain spends bob's state, the second holds it",
            try bundleBytes(passedOn, heldOnce),
            try request(bob, 8_000, nonce(0xB6)), expect: "duplicate_payment")
    }
}

/// The cases of `verification.json`, in the order they are added.
struct VerificationCases {
    /// The verifier's clock of a case that gives none.
    let now: Timestamp
    private(set) var list: [[String: Any]] = []

    /// Adds case `name`: `bundle` verified against `request` at `now` (default the fixtures'
    /// `now`) must give `expect`, and for `ok` the total `amount`.
    mutating func add(
        _ name: String, _ why: String, _ bundle: [UInt8], _ request: PaymentRequest, now at: Timestamp? = nil,
        expect: String, amount: UInt64? = nil,
        keyset: Keyset? = nil, limits: Limits? = nil, held: [StateRef] = [], received: [StateRef] = []
    ) {
        var fields: [String: Any] = [
            "name": name, "description": why, "now": at ?? now, "request": hex(request.encoded), "bundle": hex(bundle),
            "expect": expect,
        ]
        if let amount { fields["amount"] = amount }
        // Optional fields (docs/vectors/README.md), written only when a case uses them, so the
        // cases written before them keep their exact form.
        if let keyset { fields["keyset"] = hex(keyset.encoded) }
        if let limits { fields["limits"] = hex(limits.encoded) }
        if !held.isEmpty { fields["held_states"] = held.map(\.hex) }
        if !received.isEmpty { fields["received_states"] = received.map(\.hex) }
        list.append(fields)
    }
}
