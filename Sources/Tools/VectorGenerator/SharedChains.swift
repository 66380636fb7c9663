import OfflineNotes

/// The chains, request and bundle that more than one vector file uses, built once so that every
/// file carries the same bytes for them (`messages.json`'s payment is `verification.json`'s
/// `ok_1hop` and `session.json`'s bundle; fraud proofs reuse the verification cases' spends).
struct SharedChains {
    /// Alice's 100.00 note (note id 1).
    let aliceNote: Chain
    /// Alice pays bob 30.00 from `aliceNote`, 70.00 change: the payment of `messages.json`.
    let oneHop: Chain
    /// Alice → carol → alice → bob: 25.00 for bob from a 50.00 note (note id 2).
    let threeHop: Chain
    /// Bob's request that `oneHop` pays: 30.00, nonce 0xB1.
    let bobsRequest: PaymentRequest
    /// The payment bundle of `oneHop` alone.
    let oneHopBundle: PaymentBundle
    /// `aliceNote` spent again, split otherwise (20.00 to bob): with `oneHop`, a double spend.
    let spendAgain: Chain
    /// Alice pays bob a 40.00 note whole (note id 12).
    let heldOnce: Chain
    /// `heldOnce` passed on by bob to carol, who pays it back to bob.
    let passedOn: Chain
    /// Five whole-note hops of a 50.00 note (note id 11), alice and carol in turn, the last to bob.
    let fiveHop: Chain
    /// Alice pays carol two identical outputs of 10.00 (note id 17); the chain holds output 0.
    let twins: Chain
    /// Carol pays bob from `twins`' output 0.
    let viaTwin0: Chain
    /// Carol pays bob from `twins`' output 1.
    let viaTwin1: Chain
    /// A 10.00 note of bob's (note id 13) without transfers, holding output 1: malformed (§4.3).
    let noteHoldingOne: Chain

    init(_ fixtures: Fixtures) throws {
        let (alice, bob, carol) = (fixtures.alice, fixtures.bob, fixtures.carol)
        let nonce = fixtures.nonce
        aliceNote = try fixtures.note(10_000, to: alice, id: 1)
        oneHop = try fixtures.transfer(aliceNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1))
        var threeHop = try fixtures.note(5_000, to: alice, id: 2)
        threeHop = try fixtures.transfer(threeHop, by: alice, [(carol, 5_000)], nonce: nonce(0xC1))
        threeHop = try fixtures.transfer(threeHop, by: carol, [(alice, 4_000), (carol, 1_000)], nonce: nonce(0xA1))
        self.threeHop = try fixtures.transfer(threeHop, by: alice, [(bob, 2_500), (alice, 1_500)], nonce: nonce(0xB3))
        bobsRequest = try fixtures.request(bob, 3_000, nonce(0xB1))
        oneHopBundle = try PaymentBundle(chains: [oneHop])
        spendAgain = try fixtures.transfer(aliceNote, by: alice, [(bob, 2_000), (alice, 8_000)], nonce: nonce(0xB1))
        heldOnce = try fixtures.transfer(
            try fixtures.note(4_000, to: alice, id: 12), by: alice, [(bob, 4_000)], nonce: nonce(0xB6))
        passedOn = try fixtures.transfer(
            try fixtures.transfer(heldOnce, by: bob, [(carol, 4_000)], nonce: nonce(0x61)), by: carol, [(bob, 4_000)],
            nonce: nonce(0xB6))
        var fiveHop = try fixtures.note(5_000, to: alice, id: 11)
        for (hop, (from, to)) in [(alice, carol), (carol, alice), (alice, carol), (carol, alice), (alice, bob)].enumerated() {
            fiveHop = try fixtures.transfer(
                fiveHop, by: from, [(to, 5_000)], nonce: hop == 4 ? nonce(0xB5) : nonce(UInt8(0x50 + hop)))
        }
        self.fiveHop = fiveHop
        twins = try fixtures.transfer(
            try fixtures.note(2_000, to: alice, id: 17), by: alice, [(carol, 1_000), (carol, 1_000)], nonce: nonce(0xC7))
        viaTwin0 = try fixtures.transfer(twins, by: carol, [(bob, 1_000)], nonce: nonce(0xB7))
        viaTwin1 = try fixtures.transfer(twins.holding(1), by: carol, [(bob, 1_000)], nonce: nonce(0xB7))
        noteHoldingOne = try fixtures.note(1_000, to: bob, id: 13).holding(1)
    }
}
