import OfflineNotes

extension Fixtures {
    /// The cases of `verification.json` that pin what the spec leaves to a reader (§4–§5), and
    /// those of its optional fields: held states, other limits, a second keyset
    /// (docs/vectors/README.md).
    func addSpecPointCases(to cases: inout VerificationCases, _ shared: SharedChains) throws {
        let bobsRequest = shared.bobsRequest
        let oneHopBundle = shared.oneHopBundle.encoded
        // Points the spec leaves to a reader, each pinned by a case.
        // §4.3: `held_index ≠ 0` without transfers is a decoding error, so it wins over request_expired
        // (step 1), which looks at the decoded bundle.
        let signedAtExpiry = try transfer(
            shared.aliceNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), createdAt: bobsRequest.expiresAt)
        cases.add(
            "malformed_held_index_without_transfers",
            """
            chain 0 was signed at the request's expiry, chain 1 has no transfer and held_index 1: decoding refuses the bundle \
            first
            """,
            try bundleBytes(signedAtExpiry, shared.noteHoldingOne), bobsRequest, expect: "malformed")
        // §5.1 step 2: the note's currency is the limits' currency.
        cases.add(
            "wrong_currency_note_not_limits",
            "a USD note from the issuer's key paid against a USD request; the limits are in EUR",
            try bundleBytes(
                try transfer(try note(3_000, to: alice, id: 14, currency: usd), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
            try request(bob, 3_000, nonce(0xB1), currency: usd), expect: "wrong_currency")
        // §5.3: not verification checks.
        cases.add(
            "ok_issued_in_the_future", "issued_at 5 minutes after the verifier's now (the payee's clock is behind): not checked",
            try bundleBytes(
                try transfer(
                    try note(3_000, to: alice, id: 15, issuedAt: now + 300), by: alice, [(bob, 3_000)], nonce: nonce(0xB1),
                    createdAt: now + 400)), bobsRequest, expect: "ok", amount: 3_000)
        cases.add(
            "ok_lifetime_above_limits", "a note living 365 days while limits.note_lifetime is 30 days: not checked",
            try bundleBytes(
                try transfer(
                    try note(3_000, to: alice, id: 16, lifetime: 365 * 86_400), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
            bobsRequest, expect: "ok", amount: 3_000)
        // §4.4: identical outputs are distinct states.
        cases.add(
            "ok_identical_outputs",
            """
            alice pays carol two identical outputs; carol pays bob from output 1 (the chain holds output 1 of the first \
            transfer)
            """,
            try bundleBytes(shared.viaTwin1), try request(bob, 1_000, nonce(0xB7)), expect: "ok", amount: 1_000,
            received: [shared.viaTwin1.heldRef])
        cases.add(
            "ok_identical_outputs_both",
            "carol pays bob from each of the two identical outputs, one chain each: two states, no duplicate",
            try bundleBytes(shared.viaTwin0, shared.viaTwin1),
            try request(bob, 2_000, nonce(0xB7)), expect: "ok", amount: 2_000,
            received: [shared.viaTwin0.heldRef, shared.viaTwin1.heldRef])
        // Format extension: the payee's known states.
        cases.add(
            "duplicate_payment_already_held", "ok_1hop's bundle, whose held state the payee already holds", oneHopBundle,
            bobsRequest,
            expect: "duplicate_payment", held: [shared.oneHop.heldRef])
        cases.add(
            "ok_other_states_held",
            "the payee knows other states, among them the note state the chain spends: only the held state is looked up",
            oneHopBundle,
            bobsRequest, expect: "ok", amount: 3_000, held: [shared.aliceNote.heldRef, shared.threeHop.heldRef],
            received: [shared.oneHop.heldRef])
        // Format extension: other limits (same authority).
        cases.add(
            "too_many_hops_lower_limit", "ok_3hop's chain under limits allowing two hops", try bundleBytes(shared.threeHop),
            try request(bob, 2_500, nonce(0xB3)), expect: "too_many_hops", limits: try limits(maxHops: 2))
        cases.add(
            "ok_at_max_hops", "ok_3hop's chain under limits allowing exactly three hops", try bundleBytes(shared.threeHop),
            try request(bob, 2_500, nonce(0xB3)), expect: "ok", amount: 2_500, limits: try limits(maxHops: 3))
        cases.add(
            "too_many_hops_zero_limit", "a one-hop payment under limits allowing no hop (every note must be redeemed online)",
            oneHopBundle, bobsRequest, expect: "too_many_hops", limits: try limits(maxHops: 0))
        // Format extension: a second keyset with a second issuing key, valid [now − 3600, now + 86400).
        let secondKey = try Self.key("issuer-2")
        let secondFrom = now - 3_600, secondUntil = now + 86_400
        let secondKeyset = try Keyset.sign(
            sequence: 2, issuedAt: now,
            keys: issuer.keyset.keys + [
                IssuerKey(publicKey: secondKey.publicKey, validFrom: secondFrom, validUntil: secondUntil)
            ],
            authority: authority)
        func bySecondKey(_ id: UInt8, issuedAt: Timestamp) throws -> [UInt8] {
            try bundleBytes(
                try transfer(
                    try note(3_000, to: alice, id: id, issuedAt: issuedAt, by: secondKey), by: alice, [(bob, 3_000)],
                    nonce: nonce(0xB1),
                    createdAt: now + 60))
        }
        cases.add(
            "second_key_unknown_to_first_keyset",
            "a note under the second issuing key, verified with messages.json's keyset (first key only)",
            try bySecondKey(18, issuedAt: now), bobsRequest, expect: "unknown_issuer_key")
        cases.add(
            "ok_second_key_in_second_keyset", "the same note verified with the second keyset, which lists both keys",
            try bySecondKey(18, issuedAt: now), bobsRequest, expect: "ok", amount: 3_000, keyset: secondKeyset)
        cases.add(
            "ok_second_key_window_opens", "issued_at = the second key's valid_from", try bySecondKey(19, issuedAt: secondFrom),
            bobsRequest,
            expect: "ok", amount: 3_000, keyset: secondKeyset)
        cases.add(
            "issuer_key_outside_validity_before_from", "issued_at = valid_from − 1",
            try bySecondKey(20, issuedAt: secondFrom - 1),
            bobsRequest, expect: "issuer_key_outside_validity", keyset: secondKeyset)
        cases.add(
            "ok_second_key_window_last_second", "issued_at = valid_until − 1 (in the verifier's future)",
            try bySecondKey(21, issuedAt: secondUntil - 1), bobsRequest, expect: "ok", amount: 3_000, keyset: secondKeyset)
        cases.add(
            "issuer_key_outside_validity_at_until", "issued_at = valid_until: the window is half-open",
            try bySecondKey(22, issuedAt: secondUntil), bobsRequest, expect: "issuer_key_outside_validity", keyset: secondKeyset)
        // §5 step 2.8: a double spend is reported only with a valid proof (§7); a forged second spend
        // is the forgery's error.
        let forgedAgain = try transfer(
            shared.aliceNote, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 2_000), (mallory, 8_000)],
            nonce: nonce(0xB1))
        cases.add(
            "double_spend_forged_second",
            """
            ok_1hop's chain, then alice's note spent again by a transfer mallory signed under alice's key id: the proof would \
            not verify
            """,
            try bundleBytes(shared.oneHop, forgedAgain), try request(bob, 5_000, nonce(0xB1)), expect: "bad_owner_signature")
        // §5 step 2.8: the same first spend (one transfer hash) in two earlier chains, one copy badly
        // signed; the proof takes the copy of the first earlier chain that spends the state.
        let sharedNote = try note(10_000, to: alice, id: 26)
        let goodCopy = try transfer(sharedNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB8))
        let badCopy = try transfer(
            sharedNote, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 3_000), (alice, 7_000)],
            nonce: nonce(0xB8))
        guard goodCopy.transfers[0].hash == badCopy.transfers[0].hash else {
            fatalError("wallet-vectors: the two copies must be one transfer")
        }
        func changeToBob(_ copy: Chain) throws -> Chain {
            try transfer(copy.holding(1), by: alice, [(bob, 7_000)], nonce: nonce(0xB8))
        }
        let secondSpend = try transfer(sharedNote, by: alice, [(bob, 2_000), (alice, 8_000)], nonce: nonce(0xB8))
        cases.add(
            "double_spend_first_copy_badly_signed",
            """
            chains 0 and 1 both carry alice's spend A of one note (chain 0's copy badly signed, chain 1 goes on to pay bob the \
            change); chain 2 spends the note again: the proof takes chain 0's copy, which does not verify
            """,
            try bundleBytes(badCopy, try changeToBob(goodCopy), secondSpend), try request(bob, 0, nonce(0xB8)),
            expect: "bad_owner_signature")
        cases.add(
            "double_spend_second_copy_badly_signed",
            """
            the same with chain 1's copy badly signed: the proof takes chain 0's good copy and is valid (phase 2 never reaches \
            chain 1)
            """,
            try bundleBytes(goodCopy, try changeToBob(badCopy), secondSpend), try request(bob, 0, nonce(0xB8)),
            expect: "double_spend")
        // §4.2, §5 step 1: created_at is compared with the request's expiry for the last transfer only.
        cases.add(
            "ok_signed_last_second", "the last transfer created one second before the request's expiry",
            try bundleBytes(
                try transfer(
                    shared.aliceNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1),
                    createdAt: bobsRequest.expiresAt - 1
                )),
            bobsRequest, expect: "ok", amount: 3_000)
        let innerLate = try transfer(
            try note(5_000, to: alice, id: 27), by: alice, [(carol, 5_000)], nonce: nonce(0x66),
            createdAt: bobsRequest.expiresAt + 3_600)
        cases.add(
            "ok_inner_created_at_not_checked",
            """
            an inner transfer created an hour after the request's expiry, the last one before it and before the note's \
            issued_at: only the last transfer's created_at is checked, against the request's expiry
            """,
            try bundleBytes(try transfer(innerLate, by: carol, [(bob, 5_000)], nonce: nonce(0xB1), createdAt: now - 60)),
            try request(bob, 5_000, nonce(0xB1)), expect: "ok", amount: 5_000)
    }

    /// Limits like `messages.json`'s (same authority) but for `maxHops`.
    private func limits(maxHops: Int) throws -> Limits {
        try Limits.sign(
            currency: eur, maxOfflineHolding: 1_000_000, maxHops: maxHops, noteLifetime: 30 * 86_400,
            redemptionGrace: 7 * 86_400, issuedAt: now, authority: authority)
    }
}
