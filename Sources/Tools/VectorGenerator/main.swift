// Writes the protocol test vectors (docs/vectors/*.json) from fixed keys.
// Usage: swift run wallet-vectors [output-directory [file …]]   (default: docs/vectors, every file;
// e.g. `wallet-vectors /tmp/vectors session` writes session.json only)
// ECDSA signatures are randomized, so a rerun changes signature bytes but never validity;
// the committed files are the reference, and the tests check every one. Published cases never
// change: into a directory that already holds a file, only the cases it lacks (by name) are
// appended (Splice.swift); a file without cases there is left as it is. A fresh directory gets
// every file whole (docs/vectors/README.md, "Regenerating").
import Crypto
import DevIssuer
import Foundation
import NearbySession
import OfflineNotes
import QRPayload

struct Impostor: MessageSigner {
    let claimed: PublicKeyBytes
    let actual: SoftwareSigner
    var publicKey: PublicKeyBytes { claimed }
    func sign(_ message: [UInt8]) throws -> [UInt8] { try actual.sign(message) }
}

/// The value, or a clear failure: this tool's inputs are constants, so nil is a bug here.
func required<T>(_ value: T?, _ what: String) -> T {
    guard let value else { fatalError("wallet-vectors: \(what) is missing") }
    return value
}

func key(_ label: String) throws -> SoftwareSigner {
    try SoftwareSigner(rawRepresentation: Array(SHA256.hash(data: Array("offline-wallet test key \(label)".utf8))))
}

let outDir = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "docs/vectors"
let now: Timestamp = 1_800_000_000
let eur = required(Currency("EUR"), "EUR")
let authority = try key("authority")
let issuingKey = try key("issuer")
let alice = try key("alice"), bob = try key("bob"), carol = try key("carol"), mallory = try key("mallory")
let issuer = try DevIssuer(
    currency: eur, now: now, maxHops: 4, maxOfflineHolding: 1_000_000, authority: authority, issuingKey: issuingKey)
let stranger = try DevIssuer(
    currency: eur, now: now, authority: try key("stranger-authority"), issuingKey: try key("stranger-issuer"))

func id(_ n: UInt8) -> NoteID { NoteID(uncheckedBytes: Array(repeating: n, count: 16)) }
func nonce(_ n: UInt8) -> Nonce { Nonce(uncheckedBytes: Array(repeating: n, count: 16)) }

func note(
    _ amount: UInt64, to owner: SoftwareSigner, n: UInt8, issuedAt: Timestamp = now, lifetime: UInt64 = 30 * 86_400,
    by signer: (any MessageSigner)? = nil, currency: Currency = eur
) throws -> Chain {
    let s: any MessageSigner = signer ?? issuingKey
    return Chain(
        note: try IssuedNote.issue(
            noteID: id(n), currency: currency, amount: amount, owner: owner.publicKey, issuedAt: issuedAt,
            expiresAt: issuedAt + lifetime, issuer: s))
}

func transfer(
    _ chain: Chain, by signer: any MessageSigner, _ outputs: [(SoftwareSigner, UInt64)], nonce n: Nonce, input: StateRef? = nil,
    createdAt: Timestamp = now + 60
) throws -> Chain {
    let t = try Transfer.sign(
        input: input ?? chain.heldRef, outputs: outputs.map { TransferOutput(owner: $0.0.publicKey, amount: $0.1) }, nonce: n,
        createdAt: createdAt, signer: signer)
    return chain.appending(t, holding: 0)
}

func request(
    _ payee: SoftwareSigner, _ amount: UInt64, _ n: Nonce, currency: Currency = eur, expiresAt: Timestamp = now + 600
) throws -> PaymentRequest {
    try PaymentRequest(
        payee: payee.publicKey, currency: currency, amount: amount, nonce: n, expiresAt: expiresAt, payeeName: "Bob",
        hints: [.tcp("127.0.0.1:7400")])
}

func hex(_ b: [UInt8]) -> String { Hex.encode(b) }

// Messages
let n1 = try note(10_000, to: alice, n: 1)
let oneHop = try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1))
var threeHop = try note(5_000, to: alice, n: 2)
threeHop = try transfer(threeHop, by: alice, [(carol, 5_000)], nonce: nonce(0xC1))
threeHop = try transfer(threeHop, by: carol, [(alice, 4_000), (carol, 1_000)], nonce: nonce(0xA1))
threeHop = try transfer(threeHop, by: alice, [(bob, 2_500), (alice, 1_500)], nonce: nonce(0xB3))
let request1 = try request(bob, 3_000, nonce(0xB1))
let bundle1 = try PaymentBundle(chains: [oneHop])
let receipt1 = try Receipt.sign(
    paymentID: required(bundle1.paymentID, "payment id"), nonce: request1.nonce, currency: eur, amount: 3_000,
    receivedAt: now + 61, payee: bob)

let keys: [String: Any] = [
    "comment":
        "Private keys are P-256 scalars (hex, big-endian); public keys compressed SEC1. key_id = first 8 bytes of SHA-256(public key).",
    "keys": Dictionary(
        uniqueKeysWithValues: [
            ("authority", authority), ("issuer", issuingKey), ("alice", alice), ("bob", bob), ("carol", carol),
            ("mallory", mallory),
        ].map { name, k in
            (
                name,
                [
                    "private": hex(Array(k.privateKey.rawRepresentation)), "public": k.publicKey.hex,
                    "key_id": k.publicKey.keyID.hex,
                ]
            )
        }),
]

func noteFields(_ n: IssuedNote) -> [String: Any] {
    [
        "hex": hex(n.encoded), "body": hex(n.body), "signature": hex(n.signature), "note_id": n.noteID.hex,
        "issuer_key_id": n.issuerKeyID.hex,
        "currency": n.currency.code, "amount": n.amount, "owner": n.owner.hex, "issued_at": n.issuedAt, "expires_at": n.expiresAt,
        "hash": n.hash.hex, "state_ref": n.stateRef.hex,
    ]
}
func transferFields(_ t: Transfer) -> [String: Any] {
    [
        "hex": hex(t.encoded), "body": hex(t.body), "signature": hex(t.signature), "input": t.input.hex,
        "signer_key_id": t.signerKeyID.hex,
        "outputs": t.outputs.map { ["owner": $0.owner.hex, "amount": $0.amount] }, "nonce": t.nonce.hex,
        "created_at": t.createdAt,
        "hash": t.hash.hex, "output_refs": t.outputs.indices.map { t.outputRef($0).hex },
    ]
}
func chainFields(_ c: Chain) -> [String: Any] {
    [
        "hex": hex(c.encoded), "hops": c.hops, "held_index": Int(c.heldIndex), "held_ref": c.heldRef.hex,
        "held_owner": required(c.heldOutput, "held output").owner.hex,
        "held_amount": required(c.heldOutput, "held output").amount,
    ]
}

let messages: [String: Any] = [
    "comment": "Valid messages built from keys.json. Verify at now = \(now).",
    "now": now,
    "keyset": [
        "hex": hex(issuer.keyset.encoded), "authority": authority.publicKey.hex, "sequence": issuer.keyset.sequence,
        "keys": issuer.keyset.keys.map {
            ["key_id": $0.keyID.hex, "public": $0.publicKey.hex, "valid_from": $0.validFrom, "valid_until": $0.validUntil]
        },
    ],
    "limits": [
        "hex": hex(issuer.limits.encoded), "currency": "EUR", "max_offline_holding": issuer.limits.maxOfflineHolding,
        "max_hops": issuer.limits.maxHops,
        "note_lifetime": issuer.limits.noteLifetime, "redemption_grace": issuer.limits.redemptionGrace,
        "issued_at": issuer.limits.issuedAt,
    ],
    "issued_note": noteFields(n1.note),
    "transfer_1hop": transferFields(oneHop.transfers[0]),
    "chain_1hop": chainFields(oneHop),
    "chain_3hop": chainFields(threeHop),
    "payment_request": [
        "hex": hex(request1.encoded), "payee": bob.publicKey.hex, "amount": 3_000, "currency": "EUR", "nonce": request1.nonce.hex,
        "expires_at": request1.expiresAt, "payee_name": "Bob", "hints": [["kind": 1, "value": "127.0.0.1:7400"]],
    ],
    "payment_bundle": [
        "hex": hex(bundle1.encoded), "payment_id": required(bundle1.paymentID, "payment id").hex, "size": bundle1.encoded.count,
    ],
    "receipt": [
        "hex": hex(receipt1.encoded), "payment_id": receipt1.paymentID.hex, "amount": 3_000, "received_at": receipt1.receivedAt,
    ],
]

// Verification cases: (name, bundle bytes, request, now, expected)
var cases: [[String: Any]] = []
@MainActor func add(
    _ name: String, _ why: String, _ bundle: [UInt8], _ req: PaymentRequest, now at: Timestamp = now, expect: String,
    amount: UInt64? = nil,
    keyset: Keyset? = nil, limits: Limits? = nil, held: [StateRef] = [], received: [StateRef] = []
) {
    var c: [String: Any] = [
        "name": name, "description": why, "now": at, "request": hex(req.encoded), "bundle": hex(bundle), "expect": expect,
    ]
    if let amount { c["amount"] = amount }
    // Optional fields (docs/vectors/README.md), written only when a case uses them, so the
    // cases written before them keep their exact form.
    if let keyset { c["keyset"] = hex(keyset.encoded) }
    if let limits { c["limits"] = hex(limits.encoded) }
    if !held.isEmpty { c["held_states"] = held.map(\.hex) }
    if !received.isEmpty { c["received_states"] = received.map(\.hex) }
    cases.append(c)
}
func b(_ chains: Chain...) throws -> [UInt8] { try PaymentBundle(chains: chains).encoded }

add("ok_1hop", "alice pays bob 30.00 from a 100.00 note, 70.00 change", bundle1.encoded, request1, expect: "ok", amount: 3_000)
add("ok_3hop", "alice → carol → alice → bob", try b(threeHop), try request(bob, 2_500, nonce(0xB3)), expect: "ok", amount: 2_500)
let twoA = try transfer(try note(1_000, to: alice, n: 3), by: alice, [(bob, 1_000)], nonce: nonce(0xB4))
let twoB = try transfer(try note(2_000, to: alice, n: 4), by: alice, [(bob, 500), (alice, 1_500)], nonce: nonce(0xB4))
add(
    "ok_two_notes", "two chains, one exact and one with change", try b(twoA, twoB), try request(bob, 1_500, nonce(0xB4)),
    expect: "ok", amount: 1_500)
add(
    "ok_open_amount", "request with amount 0: payer chooses", bundle1.encoded, try request(bob, 0, nonce(0xB1)), expect: "ok",
    amount: 3_000)
add("truncated", "last byte missing", Array(bundle1.encoded.dropLast()), request1, expect: "truncated")
add("trailing_byte", "one byte too many", bundle1.encoded + [0], request1, expect: "malformed")
var v2 = bundle1.encoded
v2[1] = 2
add("unsupported_version", "bundle version 2", v2, request1, expect: "unsupported_version")
var t1 = bundle1.encoded
t1[0] = 0x01
add("unexpected_message_type", "a note where a bundle belongs", t1, request1, expect: "unexpected_message_type")
add(
    "unknown_issuer_key", "note signed by another issuer",
    try b(
        try transfer(
            Chain(
                note: try IssuedNote.issue(
                    noteID: id(5), currency: eur, amount: 3_000, owner: alice.publicKey, issuedAt: now, expiresAt: now + 86_400,
                    issuer: stranger.issuingKey)), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))), request1,
    expect: "unknown_issuer_key")
add(
    "issuer_key_outside_validity", "issued two days before the key's window opened",
    try b(
        try transfer(try note(3_000, to: alice, n: 6, issuedAt: now - 2 * 86_400), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
    request1, expect: "issuer_key_outside_validity")
add(
    "bad_issuer_signature", "note signed by mallory under the issuer's key id",
    try b(
        try transfer(
            try note(3_000, to: alice, n: 7, by: Impostor(claimed: issuingKey.publicKey, actual: mallory)), by: alice,
            [(bob, 3_000)], nonce: nonce(0xB1))), request1, expect: "bad_issuer_signature")
add(
    "signer_not_owner", "mallory signs alice's note with her own key",
    try b(try transfer(n1, by: mallory, [(bob, 3_000), (mallory, 7_000)], nonce: nonce(0xB1))), request1,
    expect: "signer_not_owner")
add(
    "bad_owner_signature", "mallory signs alice's note claiming alice's key id",
    try b(
        try transfer(
            n1, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 3_000), (mallory, 7_000)], nonce: nonce(0xB1))),
    request1, expect: "bad_owner_signature")
add(
    "broken_chain", "transfer input is another note's state",
    try b(
        try transfer(
            n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), input: try note(10_000, to: alice, n: 8).heldRef)),
    request1, expect: "broken_chain")
add(
    "value_not_conserved", "outputs sum to 100.01 from a 100.00 note",
    try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_001)], nonce: nonce(0xB1))), request1,
    expect: "value_not_conserved")
add(
    "zero_amount", "an output of zero",
    try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000), (carol, 0)], nonce: nonce(0xB1))), request1,
    expect: "zero_amount")
add(
    "amount_overflow", "note amount above 2^63-1",
    try b(
        try transfer(
            try note(UInt64(Int64.max) + 1, to: alice, n: 9), by: alice, [(bob, 3_000), (alice, UInt64(Int64.max) - 2_999)],
            nonce: nonce(0xB1))), request1, expect: "amount_overflow")
add(
    "note_expired", "verified one second after the note's expiry",
    try b(try transfer(try note(3_000, to: alice, n: 10, lifetime: 100), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
    request1, now: now + 101, expect: "note_expired")
var fiveHop = try note(5_000, to: alice, n: 11)
for (i, (from, to)) in [(alice, carol), (carol, alice), (alice, carol), (carol, alice), (alice, bob)].enumerated() {
    fiveHop = try transfer(fiveHop, by: from, [(to, 5_000)], nonce: i == 4 ? nonce(0xB5) : nonce(UInt8(0x50 + i)))
}
add(
    "too_many_hops", "five transfers; limits allow four", try b(fiveHop), try request(bob, 5_000, nonce(0xB5)),
    expect: "too_many_hops")
add(
    "wrong_currency", "request in USD", bundle1.encoded,
    try request(bob, 3_000, nonce(0xB1), currency: required(Currency("USD"), "USD")), expect: "wrong_currency")
add("wrong_recipient", "request from carol", bundle1.encoded, try request(carol, 3_000, nonce(0xB1)), expect: "wrong_recipient")
add("wrong_amount", "request for 30.01", bundle1.encoded, try request(bob, 3_001, nonce(0xB1)), expect: "wrong_amount")
add(
    "nonce_mismatch", "bundle answers another request", bundle1.encoded, try request(bob, 3_000, nonce(0xEE)),
    expect: "nonce_mismatch")
add(
    "request_expired", "signed at the request's expiry",
    try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), createdAt: request1.expiresAt)),
    request1, expect: "request_expired")
add(
    "ok_delivered_late", "signed before the request's expiry, verified after it", bundle1.encoded, request1,
    now: request1.expiresAt + 60, expect: "ok", amount: 3_000)
add(
    "duplicate_payment", "the same chain twice", try b(oneHop, oneHop), try request(bob, 6_000, nonce(0xB1)),
    expect: "duplicate_payment")
let spendAgain = try transfer(n1, by: alice, [(bob, 2_000), (alice, 8_000)], nonce: nonce(0xB1))
add(
    "double_spend", "alice's note spent by two different transfers in one bundle", try b(oneHop, spendAgain),
    try request(bob, 5_000, nonce(0xB1)), expect: "double_spend")
// One note paid to bob twice in one bundle: held by the first chain, and passed on by bob
// (to carol, who pays him back) in the second. Counted twice unless a chain may not spend what
// an earlier chain holds (step 8), nor hold what an earlier chain spends (step 7).
let heldOnce = try transfer(try note(4_000, to: alice, n: 12), by: alice, [(bob, 4_000)], nonce: nonce(0xB6))
let passedOn = try transfer(
    try transfer(heldOnce, by: bob, [(carol, 4_000)], nonce: nonce(0x61)), by: carol, [(bob, 4_000)], nonce: nonce(0xB6))
add(
    "duplicate_payment_held_then_spent", "the first chain holds bob's state, the second spends it and comes back to bob",
    try b(heldOnce, passedOn), try request(bob, 8_000, nonce(0xB6)), expect: "duplicate_payment")
add(
    "duplicate_payment_spent_then_held", "the first chain spends bob's state, the second holds it", try b(passedOn, heldOnce),
    try request(bob, 8_000, nonce(0xB6)), expect: "duplicate_payment")

// Points the spec leaves to a reader, each pinned by a case.
// §4.3: `held_index ≠ 0` without transfers is a decoding error, so it wins over request_expired
// (step 1), which looks at the decoded bundle.
let signedAtExpiry = try transfer(
    n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), createdAt: request1.expiresAt)
let noteHoldingOne = try note(1_000, to: bob, n: 13).holding(1)
add(
    "malformed_held_index_without_transfers",
    "chain 0 was signed at the request's expiry, chain 1 has no transfer and held_index 1: decoding refuses the bundle first",
    try b(signedAtExpiry, noteHoldingOne), request1, expect: "malformed")
// §5.1 step 2: the note's currency is the limits' currency.
let usd = required(Currency("USD"), "USD")
add(
    "wrong_currency_note_not_limits", "a USD note from the issuer's key paid against a USD request; the limits are in EUR",
    try b(try transfer(try note(3_000, to: alice, n: 14, currency: usd), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
    try request(bob, 3_000, nonce(0xB1), currency: usd), expect: "wrong_currency")
// §5.3: not verification checks.
add(
    "ok_issued_in_the_future", "issued_at 5 minutes after the verifier's now (the payee's clock is behind): not checked",
    try b(
        try transfer(
            try note(3_000, to: alice, n: 15, issuedAt: now + 300), by: alice, [(bob, 3_000)], nonce: nonce(0xB1),
            createdAt: now + 400)), request1, expect: "ok", amount: 3_000)
add(
    "ok_lifetime_above_limits", "a note living 365 days while limits.note_lifetime is 30 days: not checked",
    try b(try transfer(try note(3_000, to: alice, n: 16, lifetime: 365 * 86_400), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))),
    request1, expect: "ok", amount: 3_000)
// §4.4: identical outputs are distinct states.
let twins = try transfer(try note(2_000, to: alice, n: 17), by: alice, [(carol, 1_000), (carol, 1_000)], nonce: nonce(0xC7))
let viaTwin0 = try transfer(twins, by: carol, [(bob, 1_000)], nonce: nonce(0xB7))
let viaTwin1 = try transfer(twins.holding(1), by: carol, [(bob, 1_000)], nonce: nonce(0xB7))
add(
    "ok_identical_outputs",
    "alice pays carol two identical outputs; carol pays bob from output 1 (the chain holds output 1 of the first transfer)",
    try b(viaTwin1), try request(bob, 1_000, nonce(0xB7)), expect: "ok", amount: 1_000, received: [viaTwin1.heldRef])
add(
    "ok_identical_outputs_both",
    "carol pays bob from each of the two identical outputs, one chain each: two states, no duplicate", try b(viaTwin0, viaTwin1),
    try request(bob, 2_000, nonce(0xB7)), expect: "ok", amount: 2_000, received: [viaTwin0.heldRef, viaTwin1.heldRef])
// Format extension: the payee's known states.
add(
    "duplicate_payment_already_held", "ok_1hop's bundle, whose held state the payee already holds", bundle1.encoded, request1,
    expect: "duplicate_payment", held: [oneHop.heldRef])
add(
    "ok_other_states_held",
    "the payee knows other states, among them the note state the chain spends: only the held state is looked up", bundle1.encoded,
    request1, expect: "ok", amount: 3_000, held: [n1.heldRef, threeHop.heldRef], received: [oneHop.heldRef])
// Format extension: other limits (same authority).
func limits(maxHops: Int) throws -> Limits {
    try Limits.sign(
        currency: eur, maxOfflineHolding: 1_000_000, maxHops: maxHops, noteLifetime: 30 * 86_400, redemptionGrace: 7 * 86_400,
        issuedAt: now, authority: authority)
}
add(
    "too_many_hops_lower_limit", "ok_3hop's chain under limits allowing two hops", try b(threeHop),
    try request(bob, 2_500, nonce(0xB3)), expect: "too_many_hops", limits: try limits(maxHops: 2))
add(
    "ok_at_max_hops", "ok_3hop's chain under limits allowing exactly three hops", try b(threeHop),
    try request(bob, 2_500, nonce(0xB3)), expect: "ok", amount: 2_500, limits: try limits(maxHops: 3))
add(
    "too_many_hops_zero_limit", "a one-hop payment under limits allowing no hop (every note must be redeemed online)",
    bundle1.encoded, request1, expect: "too_many_hops", limits: try limits(maxHops: 0))
// Format extension: a second keyset with a second issuing key, valid [now − 3600, now + 86400).
let secondKey = try key("issuer-2")
let secondFrom = now - 3_600, secondUntil = now + 86_400
let keyset2 = try Keyset.sign(
    sequence: 2, issuedAt: now,
    keys: issuer.keyset.keys + [IssuerKey(publicKey: secondKey.publicKey, validFrom: secondFrom, validUntil: secondUntil)],
    authority: authority)
func bySecondKey(_ n: UInt8, issuedAt: Timestamp) throws -> [UInt8] {
    try b(
        try transfer(
            try note(3_000, to: alice, n: n, issuedAt: issuedAt, by: secondKey), by: alice, [(bob, 3_000)], nonce: nonce(0xB1),
            createdAt: now + 60))
}
add(
    "second_key_unknown_to_first_keyset",
    "a note under the second issuing key, verified with messages.json's keyset (first key only)",
    try bySecondKey(18, issuedAt: now), request1, expect: "unknown_issuer_key")
add(
    "ok_second_key_in_second_keyset", "the same note verified with the second keyset, which lists both keys",
    try bySecondKey(18, issuedAt: now), request1, expect: "ok", amount: 3_000, keyset: keyset2)
add(
    "ok_second_key_window_opens", "issued_at = the second key's valid_from", try bySecondKey(19, issuedAt: secondFrom), request1,
    expect: "ok", amount: 3_000, keyset: keyset2)
add(
    "issuer_key_outside_validity_before_from", "issued_at = valid_from − 1", try bySecondKey(20, issuedAt: secondFrom - 1),
    request1, expect: "issuer_key_outside_validity", keyset: keyset2)
add(
    "ok_second_key_window_last_second", "issued_at = valid_until − 1 (in the verifier's future)",
    try bySecondKey(21, issuedAt: secondUntil - 1), request1, expect: "ok", amount: 3_000, keyset: keyset2)
add(
    "issuer_key_outside_validity_at_until", "issued_at = valid_until: the window is half-open",
    try bySecondKey(22, issuedAt: secondUntil), request1, expect: "issuer_key_outside_validity", keyset: keyset2)
// §5 step 2.8: a double spend is reported only with a valid proof (§7); a forged second spend
// is the forgery's error.
let forgedAgain = try transfer(
    n1, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 2_000), (mallory, 8_000)], nonce: nonce(0xB1))
add(
    "double_spend_forged_second",
    "ok_1hop's chain, then alice's note spent again by a transfer mallory signed under alice's key id: the proof would not verify",
    try b(oneHop, forgedAgain), try request(bob, 5_000, nonce(0xB1)), expect: "bad_owner_signature")
// §5 step 2.8: the same first spend (one transfer hash) in two earlier chains, one copy badly
// signed; the proof takes the copy of the first earlier chain that spends the state.
let sharedNote = try note(10_000, to: alice, n: 26)
let goodCopy = try transfer(sharedNote, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB8))
let badCopy = try transfer(
    sharedNote, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB8))
guard goodCopy.transfers[0].hash == badCopy.transfers[0].hash else {
    fatalError("wallet-vectors: the two copies must be one transfer")
}
func changeToBob(_ copy: Chain) throws -> Chain { try transfer(copy.holding(1), by: alice, [(bob, 7_000)], nonce: nonce(0xB8)) }
let secondSpend = try transfer(sharedNote, by: alice, [(bob, 2_000), (alice, 8_000)], nonce: nonce(0xB8))
add(
    "double_spend_first_copy_badly_signed",
    "chains 0 and 1 both carry alice's spend A of one note (chain 0's copy badly signed, chain 1 goes on to pay bob the change); chain 2 spends the note again: the proof takes chain 0's copy, which does not verify",
    try b(badCopy, try changeToBob(goodCopy), secondSpend), try request(bob, 0, nonce(0xB8)), expect: "bad_owner_signature")
add(
    "double_spend_second_copy_badly_signed",
    "the same with chain 1's copy badly signed: the proof takes chain 0's good copy and is valid (phase 2 never reaches chain 1)",
    try b(goodCopy, try changeToBob(badCopy), secondSpend), try request(bob, 0, nonce(0xB8)), expect: "double_spend")
// §4.2, §5 step 1: created_at is compared with the request's expiry for the last transfer only.
add(
    "ok_signed_last_second", "the last transfer created one second before the request's expiry",
    try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), createdAt: request1.expiresAt - 1)),
    request1, expect: "ok", amount: 3_000)
let innerLate = try transfer(
    try note(5_000, to: alice, n: 27), by: alice, [(carol, 5_000)], nonce: nonce(0x66), createdAt: request1.expiresAt + 3_600)
add(
    "ok_inner_created_at_not_checked",
    "an inner transfer created an hour after the request's expiry, the last one before it and before the note's issued_at: only the last transfer's created_at is checked, against the request's expiry",
    try b(try transfer(innerLate, by: carol, [(bob, 5_000)], nonce: nonce(0xB1), createdAt: now - 60)),
    try request(bob, 5_000, nonce(0xB1)), expect: "ok", amount: 5_000)

let verification: [String: Any] = [
    "comment":
        "Verify each bundle against its request with the keyset and limits of messages.json, at 'now'. 'expect' is 'ok' or the error code of docs/protocol.md §6.",
    "cases": cases,
]

// Decoding cases (docs/protocol.md §4.3, §4.5): messages that decode or not, by their bytes alone.
var decodingCases: [[String: Any]] = []
func requestWith(_ hints: [TransportHint]) throws -> PaymentRequest {
    try PaymentRequest(
        payee: bob.publicKey, currency: eur, amount: 3_000, nonce: nonce(0xB1), expiresAt: now + 600, payeeName: "Bob",
        hints: hints)
}
@MainActor func addRequest(_ name: String, _ why: String, _ hints: [TransportHint], addresses: Bool = false) throws {
    decodingCases.append([
        "name": name, "description": why, "message": "payment_request", "hex": hex(try requestWith(hints).encoded),
        "expect": "ok",
        "hints": hints.map { hint in
            var fields: [String: Any] = ["kind": Int(hint.kindByte), "value": hex(hint.value), "usable": hint.isUsable]
            // The address a payer reads from a usable TCP hint, written only for the cases that
            // pin it, so the cases written before keep their exact form.
            if addresses, let address = hint.tcpAddress {
                fields["host"] = address.host
                fields["port"] = address.port
            }
            return fields
        },
    ])
}
try addRequest(
    "request_tcp_hint_not_utf8", "a TCP hint whose value is not UTF-8: decodes; a payer ignores the hint",
    [TransportHint(kind: .tcp, value: [0xFF, 0xFE, 0x3A, 0x31])])
try addRequest("request_tcp_hint_no_port", "a TCP hint without ':port': decodes; a payer ignores the hint", [.tcp("127.0.0.1")])
try addRequest(
    "request_tcp_hint_port_out_of_range", "a TCP hint with port 70000: decodes; a payer ignores the hint",
    [.tcp("127.0.0.1:70000")])
try addRequest(
    "request_ble_hint_15_bytes", "a Bluetooth LE hint of 15 bytes: decodes; a payer ignores the hint",
    [TransportHint(kind: .bluetooth, value: Array(repeating: 0x6E, count: 15))])
try addRequest(
    "request_ble_hint_17_bytes", "a Bluetooth LE hint of 17 bytes: decodes; a payer ignores the hint",
    [TransportHint(kind: .bluetooth, value: Array(repeating: 0x6E, count: 17))])
try addRequest(
    "request_qr_hint_with_value", "a QR-only hint with a non-empty value: decodes; the value is ignored",
    [TransportHint(kind: .qr, value: [0x01])])
try addRequest("request_tcp_hint_ipv6", "a TCP hint with a bracketed IPv6 host: well formed", [.tcp("[::1]:7400")])
try addRequest("request_tcp_hint_signed_port", "a TCP hint with port '+80': not decimal digits, ignored", [.tcp("127.0.0.1:+80")])
try addRequest("request_tcp_hint_empty_host", "a TCP hint ':7400': empty host, ignored", [.tcp(":7400")])
try addRequest(
    "request_unknown_hint_kind", "a hint of unknown kind 0x7F: decodes, ignored",
    [TransportHint(kindByte: 0x7F, value: [1, 2, 3]), .tcp("127.0.0.1:7400")])
try addRequest(
    "request_malformed_hint_then_good", "a malformed Bluetooth LE hint, then a well-formed TCP hint: a payer uses the TCP one",
    [TransportHint(kind: .bluetooth, value: [0x01, 0x02]), .tcp("127.0.0.1:7400")])
// §4.5: a request amount above 2^63 − 1 is amount_overflow, judged once the whole request is read.
let plainRequest = try requestWith([]).encoded
let amountAt = 2 + 33 + 3
let hugeAmount = Array(plainRequest[..<amountAt]) + varint(UInt64(Int64.max) + 1) + Array(plainRequest[(amountAt + 2)...])
decodingCases.append([
    "name": "request_amount_overflow", "description": "a request for 2^63 minor units", "message": "payment_request",
    "hex": hex(hugeAmount), "expect": "amount_overflow",
])
decodingCases.append([
    "name": "request_amount_overflow_and_trailing_byte",
    "description": "a request for 2^63 minor units with one byte too many: the trailing byte is found first",
    "message": "payment_request", "hex": hex(hugeAmount + [0]), "expect": "malformed",
])
decodingCases.append([
    "name": "request_amount_max", "description": "a request for 2^63 − 1 minor units", "message": "payment_request",
    "hex": hex(Array(plainRequest[..<amountAt]) + varint(UInt64(Int64.max)) + Array(plainRequest[(amountAt + 2)...])),
    "expect": "ok", "hints": [[String: Any]](),
])
decodingCases.append([
    "name": "chain_held_index_without_transfers", "description": "a standalone chain with no transfer and held_index 1",
    "message": "chain",
    "hex": hex(noteHoldingOne.encoded), "expect": "malformed",
])
decodingCases.append([
    "name": "chain_held_index_without_transfers_255", "description": "a standalone chain with no transfer and held_index 255",
    "message": "chain",
    "hex": hex(noteHoldingOne.holding(255).encoded), "expect": "malformed",
])
decodingCases.append([
    "name": "bundle_held_index_without_transfers", "description": "a bundle whose only chain has no transfer and held_index 1",
    "message": "payment_bundle",
    "hex": hex(try b(noteHoldingOne)), "expect": "malformed",
])
decodingCases.append([
    "name": "chain_holding_identical_output_1",
    "description":
        "a chain whose transfer has two identical outputs, holding output 1: held_ref is state_ref(output 1), not output 0's",
    "message": "chain", "hex": hex(twins.holding(1).encoded), "expect": "ok", "held_ref": twins.holding(1).heldRef.hex,
    "other_output_ref": twins.heldRef.hex,
])
// §4.5: what a payer reads from a TCP hint ('host', 'port'), and the QR-only hint's value.
try addRequest(
    "request_tcp_hint_port_leading_zeros", "port '07400': 1 to 5 decimal digits, leading zeros allowed: port 7400",
    [.tcp("127.0.0.1:07400")], addresses: true)
try addRequest(
    "request_tcp_hint_port_six_digits", "port '007400': six digits, not a port (whatever its value): ignored",
    [.tcp("127.0.0.1:007400")], addresses: true)
try addRequest(
    "request_tcp_hint_ipv6_unbracketed",
    "'::1:7400': split at the last ':', an unbracketed IPv6 host reads as host '::1', port 7400", [.tcp("::1:7400")],
    addresses: true)
try addRequest(
    "request_tcp_hint_ipv6_brackets_removed", "'[::1]:7400': the brackets around the host are removed: host '::1'",
    [.tcp("[::1]:7400")], addresses: true)
try addRequest(
    "request_tcp_hint_host_unchecked",
    "'kassé 2:7400': any non-empty text is a host (a space, non-ASCII letters); whether it can be reached is found by connecting",
    [.tcp("kassé 2:7400")], addresses: true)
try addRequest(
    "request_tcp_hint_unclosed_bracket", "'[::1:7400': brackets are removed only as a pair around the whole host: host '[::1'",
    [.tcp("[::1:7400")], addresses: true)
try addRequest(
    "request_tcp_hint_empty_brackets", "'[]:7400': the host is empty once its brackets are removed: ignored", [.tcp("[]:7400")],
    addresses: true)
try addRequest(
    "request_qr_hint_128_byte_value", "a QR-only hint with a 128-byte value: usable, the value is ignored",
    [TransportHint(kind: .qr, value: Array(repeating: 0x51, count: 128))])
// §2 rule 2 and §2.1: input that ends inside the header, empty input included.
for (message, what) in [("payment_request", "request"), ("chain", "chain"), ("payment_bundle", "bundle"), ("keyset", "keyset")] {
    decodingCases.append([
        "name": "empty_\(what)", "description": "no bytes at all: the input ends inside the header", "message": message,
        "hex": "", "expect": "truncated",
    ])
}
decodingCases.append([
    "name": "bundle_type_byte_only", "description": "the bundle's type byte and nothing more", "message": "payment_bundle",
    "hex": "05", "expect": "truncated",
])
decodingCases.append([
    "name": "bundle_other_type_byte_only",
    "description": "a note's type byte and nothing more: the type is judged as soon as it is read", "message": "payment_bundle",
    "hex": "01", "expect": "unexpected_message_type",
])
// §4.8: the keyset's rules in the order a decoder checks them, with messages.json's authority.
func keysetBody(count: Int? = nil, _ entries: [[UInt8]]) -> [UInt8] {
    var w = ByteWriter()
    w.raw([0x07, 0x01])
    w.varint(2)
    w.varint(now)
    w.u8(UInt8(count ?? entries.count))
    for entry in entries { w.raw(entry) }
    return w.bytes
}
func keysetEntry(
    _ key: PublicKeyBytes, id: KeyID? = nil, from: Timestamp = now - 86_400, until: Timestamp = now + 86_400
) -> [UInt8] {
    var w = ByteWriter()
    w.raw(id ?? key.keyID)
    w.raw(key)
    w.varint(from)
    w.varint(until)
    return w.bytes
}
func signedKeyset(_ body: [UInt8], by signer: SoftwareSigner = authority) throws -> [UInt8] {
    body + (try signer.sign(SignatureContext.keyset.message(body)))
}
@MainActor func addKeyset(_ name: String, _ why: String, _ bytes: [UInt8], expect: String) {
    decodingCases.append(["name": name, "description": why, "message": "keyset", "hex": hex(bytes), "expect": expect])
}
let goodEntry = keysetEntry(issuingKey.publicKey)
let emptyWindow = keysetEntry(issuingKey.publicKey, from: now, until: now)
let offCurve = required(
    (0...255).lazy.map { PublicKeyBytes(uncheckedBytes: [0x02] + Array(repeating: 0, count: 31) + [UInt8($0)]) }.first {
        (try? $0.signingKey()) == nil
    },
    "an x-coordinate off the curve")
addKeyset("keyset_ok", "one key, signed by the authority", try signedKeyset(keysetBody([goodEntry])), expect: "ok")
addKeyset("keyset_key_count_zero", "key_count 0", try signedKeyset(keysetBody([])), expect: "malformed")
addKeyset(
    "keyset_key_count_before_keys", "key_count 33 followed by the signature alone: the count is judged before any key is read",
    try signedKeyset(keysetBody(count: 33, [])), expect: "malformed")
addKeyset(
    "keyset_key_prefix_as_read",
    "a key with prefix 0x04 and the message ending right after its 33 bytes: the prefix is judged as the key is read",
    keysetBody([Array(issuingKey.publicKey.keyID.bytes) + [0x04] + Array(issuingKey.publicKey.bytes.dropFirst())]),
    expect: "malformed")
addKeyset(
    "keyset_key_id_mismatch", "an entry whose key_id is alice's key id and whose key is the issuer's",
    try signedKeyset(keysetBody([keysetEntry(issuingKey.publicKey, id: alice.publicKey.keyID)])), expect: "malformed")
addKeyset(
    "keyset_key_id_twice", "the same entry twice", try signedKeyset(keysetBody([goodEntry, goodEntry])), expect: "malformed")
addKeyset("keyset_empty_window", "valid_from = valid_until", try signedKeyset(keysetBody([emptyWindow])), expect: "malformed")
addKeyset(
    "keyset_key_off_the_curve", "a key with prefix 0x02 whose x-coordinate is not on P-256 (key_id its key id)",
    try signedKeyset(keysetBody([keysetEntry(offCurve)])), expect: "malformed")
addKeyset(
    "keyset_entry_before_next_entry",
    "key_count 2, the first entry with an empty window, and the message ending after it: each entry is judged before the next is read",
    keysetBody(count: 2, [emptyWindow]), expect: "malformed")
addKeyset(
    "keyset_rules_before_signature", "an empty window, signed by mallory: decoding rules come before the authority's signature",
    try signedKeyset(keysetBody([emptyWindow]), by: mallory), expect: "malformed")
addKeyset(
    "keyset_trailing_byte_before_signature",
    "a well-formed keyset signed by mallory with one byte too many: decoding ends before the signature is checked",
    try signedKeyset(keysetBody([goodEntry]), by: mallory) + [0], expect: "malformed")
addKeyset(
    "keyset_bad_authority_signature", "a well-formed keyset signed by mallory",
    try signedKeyset(keysetBody([goodEntry]), by: mallory), expect: "bad_authority_signature")
let decoding: [String: Any] = [
    "comment":
        "Decode 'hex' as the named message (payment_request, chain = standalone type 0x03, payment_bundle, keyset = checked with the authority of messages.json). 'expect' is 'ok' or the error code of docs/protocol.md §6. For requests, 'hints' lists the decoded hints (kind, value hex) in order and whether a payer can use each ('usable', §4.5), and in some cases a usable TCP hint's 'host' and 'port'; for chains, 'held_ref' is the state the chain holds (§4.4).",
    "cases": decodingCases,
]

// Fraud proofs (docs/protocol.md §7): (chain, first, second) checked at 'now' with messages.json's keyset and limits.
var fraudCases: [[String: Any]] = []
@MainActor func addProof(
    _ name: String, _ why: String, _ chain: Chain, _ first: Transfer, _ second: Transfer, now at: Timestamp = now, expect: String,
    cheater: SoftwareSigner? = nil
) {
    addProof(name, why, bytes: (chain.encoded, first.encoded, second.encoded), now: at, expect: expect, cheater: cheater)
}
/// A proof given as bytes, which need not decode.
@MainActor func addProof(
    _ name: String, _ why: String, bytes: (chain: [UInt8], first: [UInt8], second: [UInt8]), now at: Timestamp = now,
    expect: String, cheater: SoftwareSigner? = nil
) {
    var c: [String: Any] = [
        "name": name, "description": why, "now": at, "chain": hex(bytes.chain), "first": hex(bytes.first),
        "second": hex(bytes.second), "expect": expect,
    ]
    if let cheater { c["cheater"] = cheater.publicKey.hex }
    // What the issuer answers to POST /v1/fraud-proofs with this proof (§7).
    switch expect {
    case "ok": c["issuer"] = ["status": 200]
    case "malformed" where name.hasPrefix("same_") || name.hasPrefix("different_inputs") || name.hasPrefix("order_same"):
        c["issuer"] = ["status": 400, "code": "invalid_field", "field": "second"]
    default: c["issuer"] = ["status": 400, "code": expect]
    }
    fraudCases.append(c)
}
func signTransfer(
    _ input: StateRef, by signer: any MessageSigner, _ outputs: [(SoftwareSigner, UInt64)], nonce n: Nonce,
    createdAt: Timestamp = now + 60
) throws -> Transfer {
    try Transfer.sign(
        input: input, outputs: outputs.map { TransferOutput(owner: $0.0.publicKey, amount: $0.1) }, nonce: n,
        createdAt: createdAt, signer: signer)
}
let spendA = oneHop.transfers[0], spendB = spendAgain.transfers[0]
addProof("ok", "alice's note spent to bob twice with different splits", n1, spendA, spendB, expect: "ok", cheater: alice)
let shortNote = try note(3_000, to: alice, n: 23, lifetime: 100)
addProof(
    "ok_after_expiry", "checked ten days after the note expired: expiry is not a fraud-proof check", shortNote,
    try signTransfer(shortNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
    try signTransfer(shortNote.heldRef, by: alice, [(carol, 3_000)], nonce: nonce(0xC1)),
    now: now + 10 * 86_400, expect: "ok", cheater: alice)
let bobsState = heldOnce
addProof(
    "ok_middle_of_chain",
    "bob, holding the output of alice's transfer, spends it to carol and to mallory: bob is named, not alice", bobsState,
    passedOn.transfers[1], try signTransfer(bobsState.heldRef, by: bob, [(mallory, 4_000)], nonce: nonce(0x62)), expect: "ok",
    cheater: bob)
addProof(
    "ok_non_held_output",
    "the proving chain holds output 0 of two identical outputs, both transfers spend output 1: the chain's held_index is not used",
    twins, viaTwin1.transfers[1], try signTransfer(twins.holding(1).heldRef, by: carol, [(mallory, 1_000)], nonce: nonce(0x63)),
    expect: "ok", cheater: carol)
addProof("same_transfer", "first and second are the same bytes", n1, spendA, spendA, expect: "malformed")
addProof(
    "same_transfer_other_signature",
    "the same transfer body signed again (another ECDSA signature): one transfer hash, no double spend",
    n1, spendA, try signTransfer(n1.heldRef, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1)), expect: "malformed")
let strangerNote = Chain(
    note: try IssuedNote.issue(
        noteID: id(24), currency: eur, amount: 3_000, owner: alice.publicKey, issuedAt: now, expiresAt: now + 86_400,
        issuer: stranger.issuingKey))
addProof(
    "chain_unknown_issuer_key", "the proving chain's note is from another issuer", strangerNote,
    try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
    try signTransfer(strangerNote.heldRef, by: alice, [(carol, 3_000)], nonce: nonce(0xC1)), expect: "unknown_issuer_key")
let forgedNote = try note(3_000, to: alice, n: 25, by: Impostor(claimed: issuingKey.publicKey, actual: mallory))
addProof(
    "chain_bad_issuer_signature", "the proving chain's note is forged under the issuer's key id", forgedNote,
    try signTransfer(forgedNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
    try signTransfer(forgedNote.heldRef, by: alice, [(carol, 3_000)], nonce: nonce(0xC1)), expect: "bad_issuer_signature")
let otherNote = try note(10_000, to: alice, n: 8)
addProof(
    "first_spends_another_state", "first spends another note's state (signed by its owner)", n1,
    try signTransfer(otherNote.heldRef, by: alice, [(bob, 10_000)], nonce: nonce(0xB1)), spendB, expect: "broken_chain")
addProof(
    "second_spends_another_state", "second spends another note's state", n1, spendA,
    try signTransfer(otherNote.heldRef, by: alice, [(bob, 10_000)], nonce: nonce(0xB1)), expect: "broken_chain")
addProof(
    "different_inputs",
    "first spends output 0, second output 1 of two identical outputs: each is a valid spend, of different states",
    twins, viaTwin0.transfers[1], viaTwin1.transfers[1], expect: "malformed")
addProof(
    "first_bad_signature", "first claims alice's key id but mallory signed it", n1,
    try signTransfer(
        n1.heldRef, by: Impostor(claimed: alice.publicKey, actual: mallory), [(mallory, 10_000)], nonce: nonce(0x6D)), spendB,
    expect: "bad_owner_signature")
addProof(
    "second_bad_signature", "second claims alice's key id but mallory signed it", n1, spendA,
    try signTransfer(
        n1.heldRef, by: Impostor(claimed: alice.publicKey, actual: mallory), [(mallory, 10_000)], nonce: nonce(0x6D)),
    expect: "bad_owner_signature")
addProof(
    "second_signer_not_owner", "mallory signs alice's state under her own key id", n1, spendA,
    try signTransfer(n1.heldRef, by: mallory, [(mallory, 10_000)], nonce: nonce(0x6D)), expect: "signer_not_owner")
addProof(
    "second_value_not_conserved", "alice signs a second transfer whose outputs exceed the note: checked like any hop", n1, spendA,
    try signTransfer(n1.heldRef, by: alice, [(bob, 10_001)], nonce: nonce(0xB2)), expect: "value_not_conserved")
let fourHops = Chain(note: fiveHop.note, transfers: Array(fiveHop.transfers.prefix(4)), heldIndex: 0)
addProof(
    "too_many_hops", "the proving chain has max_hops (4) transfers: a fifth is beyond the limit", fourHops, fiveHop.transfers[4],
    try signTransfer(fourHops.heldRef, by: alice, [(carol, 5_000)], nonce: nonce(0x64)), expect: "too_many_hops")
addProof(
    "order_same_transfer_before_chain", "same transfer twice and a note from another issuer: the equality check comes first",
    strangerNote,
    try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)),
    try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)), expect: "malformed")
addProof(
    "order_signature_before_inputs",
    "different inputs and a bad second signature: signatures are checked before the inputs are compared",
    twins, viaTwin0.transfers[1],
    try signTransfer(
        twins.holding(1).heldRef, by: Impostor(claimed: carol.publicKey, actual: mallory), [(mallory, 1_000)], nonce: nonce(0x65)),
    expect: "bad_owner_signature")
// §7: chain, first and second are decoded in that order, all before check 1.
var secondV2 = spendB.encoded
secondV2[1] = 2
addProof(
    "order_decoding_chain_first",
    "the chain cut short, first with a trailing byte, second the same bytes as first: the chain is decoded first, before check 1",
    bytes: (Array(n1.encoded.dropLast()), spendA.encoded + [0], spendA.encoded + [0]), expect: "truncated")
addProof(
    "order_decoding_first_before_second", "first cut short, second of version 2: first is decoded before second",
    bytes: (n1.encoded, Array(spendA.encoded.dropLast()), secondV2), expect: "truncated")
addProof(
    "order_decoding_before_checks",
    "a chain from another issuer, first valid for it, second cut short: every part is decoded before check 2",
    bytes: (
        strangerNote.encoded, try signTransfer(strangerNote.heldRef, by: alice, [(bob, 3_000)], nonce: nonce(0xB1)).encoded,
        Array(spendB.encoded.dropLast())
    ), expect: "truncated")
let fraudProofs: [String: Any] = [
    "comment":
        "Fraud proofs (docs/protocol.md §7): 'chain' is a standalone chain (type 0x03), 'first' and 'second' transfers. Check at 'now' with the keyset and limits of messages.json. 'expect' is 'ok' (then 'cheater' is the key that signed both) or the error code of §6. 'issuer' is what POST /v1/fraud-proofs answers: HTTP status and problem code (and field).",
    "cases": fraudCases,
]

// QR frames (docs/protocol.md §9). Writers: message → frames. Readers: frames in scan order →
// one result per frame.
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }
var qrWrite: [[String: Any]] = []
for (name, size) in [("empty", 0), ("one_byte", 1), ("exactly_600", 600), ("601", 601), ("1500", 1_500)] {
    let message = pattern(size)
    qrWrite.append(["name": name, "message": hex(message), "frames": try QRFrames.encode(message)])
}
func frame(_ header: [UInt8], _ chunk: [UInt8]) -> String { QRFrames.prefix + Base45.encode(header + chunk) }
let qrMessage = pattern(1_500)
let qrFrames = try QRFrames.encode(qrMessage)
let qrSum = Array(SHA256.hash(data: qrMessage).prefix(4))
let otherFrames = try QRFrames.encode(pattern(1_499))
var misread = Array(qrMessage[600..<1_200])
misread[0] ^= 1
let misreadFrame = frame([1, 1, 3] + qrSum, misread)
var qrRead: [[String: Any]] = []
@MainActor func addScan(_ name: String, _ why: String, _ frames: [String], _ results: [String], message: [UInt8]? = nil) {
    var c: [String: Any] = ["name": name, "description": why, "frames": frames, "results": results]
    if let message { c["message"] = hex(message) }
    qrRead.append(c)
}
addScan("in_order", "three frames in order", qrFrames, ["incomplete", "incomplete", "complete"], message: qrMessage)
addScan(
    "any_order_with_duplicate", "frames 2, 0, 2 again, 1", [qrFrames[2], qrFrames[0], qrFrames[2], qrFrames[1]],
    ["incomplete", "incomplete", "incomplete", "complete"], message: qrMessage)
addScan("empty_message", "the one frame of the empty message", try QRFrames.encode([]), ["complete"], message: [])
addScan(
    "not_a_frame", "text without the prefix, the prefix in lower case, and a frame with a trailing newline, then the frames",
    ["https://example.com", "ow:" + String(qrFrames[0].dropFirst(3)), qrFrames[0] + "\n"] + qrFrames,
    ["not_a_frame", "not_a_frame", "not_a_frame", "incomplete", "incomplete", "complete"], message: qrMessage)
addScan(
    "bad_base45", "a character outside the alphabet (lower case), a triple above 65535, a leftover single character",
    ["OW:" + String(qrFrames[0].dropFirst(3)).lowercased(), "OW:GGW", frame([1, 0, 1] + qrSum, [0x41]) + "0"],
    ["not_a_frame", "not_a_frame", "not_a_frame"])
addScan(
    "short_header", "an empty frame after the prefix, and one of 6 bytes", ["OW:", frame([1, 0, 1, 0, 0, 0], [])],
    ["malformed", "malformed"])
addScan(
    "other_version", "a frame of version 2 (otherwise frame 0 of the message), then the message's frames",
    [frame([2, 0, 3] + qrSum, Array(qrMessage[0..<600]))] + qrFrames,
    ["unsupported_version", "incomplete", "incomplete", "complete"], message: qrMessage)
addScan("count_zero", "count 0", [frame([1, 0, 0] + qrSum, [1])], ["malformed"])
addScan("index_not_below_count", "index 3 of count 3", [frame([1, 3, 3] + qrSum, [1])], ["malformed"])
addScan(
    "version_before_count", "version 2 with count 0: the version is checked first", [frame([2, 0, 0] + qrSum, [1])],
    ["unsupported_version"])
addScan(
    "mixed_checksum",
    "frame 0 of one message, then frame 1 of another of the same count (other checksum), then the rest of the first",
    [qrFrames[0], otherFrames[1], qrFrames[1], qrFrames[2]], ["incomplete", "mixed_payloads", "incomplete", "complete"],
    message: qrMessage)
addScan(
    "mixed_count", "frame 0 of a three-frame message, then a frame with the same checksum and count 2",
    [qrFrames[0], frame([1, 1, 2] + qrSum, [1])], ["incomplete", "mixed_payloads"])
addScan(
    "misread_then_rescanned",
    "frame 1 misread (one bit), the others, then frame 1 scanned again: the later frame replaces the earlier one",
    [qrFrames[0], misreadFrame, qrFrames[2], qrFrames[1]], ["incomplete", "incomplete", "checksum_mismatch", "complete"],
    message: qrMessage)
addScan(
    "chunk_sizes_are_free", "a reader takes chunks of any size, even empty: 1500 bytes as 0, 1 and 1499",
    [
        frame([1, 0, 3] + qrSum, []), frame([1, 1, 3] + qrSum, [qrMessage[0]]), frame([1, 2, 3] + qrSum, Array(qrMessage[1...])),
    ], ["incomplete", "incomplete", "complete"], message: qrMessage)
// §9: a reader that answered complete keeps its frames.
addScan(
    "after_complete",
    "the three frames, then frame 1 again, frame 1 misread, frame 1 again, and frame 0 of another message: a complete reader keeps its chunks and answers each frame as rule 6 says",
    [qrFrames[0], qrFrames[1], qrFrames[2], qrFrames[1], misreadFrame, qrFrames[1], otherFrames[0]],
    ["incomplete", "incomplete", "complete", "complete", "checksum_mismatch", "complete", "mixed_payloads"], message: qrMessage)
let qr: [String: Any] = [
    "comment":
        "QR frames (docs/protocol.md §9). 'write': a writer cuts 'message' into exactly 'frames'. 'read': a fresh reader given 'frames' in order answers each with 'results': 'incomplete', 'complete' (the reassembled message is 'message') or an error: not_a_frame, malformed, unsupported_version, mixed_payloads, checksum_mismatch.",
    "chunk_size": 600,
    "write": qrWrite,
    "read": qrRead,
]

// Link frames (docs/protocol.md §12.3): one frame's bytes → what it decodes to.
var linkCases: [[String: Any]] = []
@MainActor func addLink(_ name: String, _ bytes: [UInt8], _ expect: [String: Any]?) {
    var c: [String: Any] = ["name": name, "hex": hex(bytes)]
    if let expect {
        c["expect"] = "ok"
        c["frame"] = expect
    } else {
        c["expect"] = "protocol_violation"
    }
    linkCases.append(c)
}
func varint(_ v: UInt64) -> [UInt8] {
    var w = ByteWriter()
    w.varint(v)
    return w.bytes
}
let mib: UInt64 = 1 << 20
addLink("data_first", [0x04, 0xAA], ["kind": "data", "offset": 0, "fin": true, "bytes": "aa"])
addLink("data_offset_300", varint(300 << 3) + [1, 2, 3], ["kind": "data", "offset": 300, "fin": false, "bytes": "010203"])
addLink(
    "data_ends_at_1_mib", varint((mib - 1) << 3 | 4) + [9], ["kind": "data", "offset": Int(mib - 1), "fin": true, "bytes": "09"])
addLink("data_beyond_1_mib", varint((mib - 1) << 3) + [9, 9], nil)
addLink("data_offset_beyond_1_mib", varint((mib + 1) << 3) + [9], nil)
addLink("data_empty", [0x00], nil)
addLink("data_empty_fin", [0x04], nil)
addLink("ack_0", [0x01], ["kind": "ack", "received": 0])
addLink("ack_1_mib", varint(mib << 2 | 1), ["kind": "ack", "received": Int(mib)])
addLink("ack_beyond_1_mib", varint((mib + 1) << 2 | 1), nil)
addLink("ack_trailing_byte", [0x01, 0x00], nil)
addLink(
    "resume", varint(341 << 2 | 2) + Array(repeating: 0x5A, count: 8),
    ["kind": "resume", "received": 341, "session_id": hex(Array(repeating: 0x5A, count: 8))])
addLink("resume_7_byte_id", [0x02] + Array(repeating: 0x5A, count: 7), nil)
addLink("resume_9_byte_id", [0x02] + Array(repeating: 0x5A, count: 9), nil)
addLink("abort_busy", [4 << 2 | 3], ["kind": "abort", "code": 4])
addLink("abort_unknown_code", varint(1000 << 2 | 3), ["kind": "abort", "code": 1000])
addLink("abort_trailing_byte", [0x07, 0x00], nil)
addLink("header_not_shortest", [0x81, 0x00], nil)
addLink("header_truncated", [0x81], nil)
addLink("empty", [], nil)
let linkFrames: [String: Any] = [
    "comment":
        "Nearby-session frames (docs/protocol.md §12.3): decode 'hex' as one frame. 'expect' is 'ok' (then 'frame' gives its kind and fields; 'bytes' and 'session_id' in hex) or 'protocol_violation'.",
    "cases": linkCases,
]

// Stream reassembly (docs/protocol.md §12.3): DATA frames in arrival order → the records a
// reader hands out, or the frame at which it fails.
var streamCases: [[String: Any]] = []
@MainActor func addStream(_ name: String, _ why: String, _ frames: [LinkFrame], records: [[UInt8]], failsAt: Int? = nil) {
    var c: [String: Any] = [
        "name": name, "description": why, "frames": frames.map { hex($0.encoded) }, "records": records.map(hex),
    ]
    if let failsAt { c["fails_at"] = failsAt }
    streamCases.append(c)
}
let recordA = pattern(34), recordB = Array(pattern(16).reversed())
let inOrder: [LinkFrame] = [
    .data(offset: 0, fin: true, bytes: recordA), .data(offset: 34, fin: false, bytes: Array(recordB[..<10])),
    .data(offset: 44, fin: true, bytes: Array(recordB[10...])),
]
addStream("in_order", "a 34-byte record in one frame, a 16-byte record in two", inOrder, records: [recordA, recordB])
addStream(
    "reordered_and_duplicated", "the same frames arriving 3, 1, 2, 2: the early one waits, the duplicate is ignored",
    [inOrder[2], inOrder[0], inOrder[1], inOrder[1]], records: [recordA, recordB])
addStream(
    "recut_overlap", "a retransmission cut differently (bytes 0–19, then 10–33 with fin): the overlap is taken once",
    [.data(offset: 0, fin: false, bytes: Array(recordA[..<20])), .data(offset: 10, fin: true, bytes: Array(recordA[10...]))],
    records: [recordA])
var altered = Array(recordA[5..<34])
altered[0] ^= 0xFF
addStream(
    "overlap_not_compared",
    "bytes below the reader's position are dropped without comparing them: the first copy stands (AES-GCM would catch a change)",
    [.data(offset: 0, fin: false, bytes: Array(recordA[..<10])), .data(offset: 5, fin: true, bytes: altered)], records: [recordA])
addStream(
    "fin_from_an_early_frame",
    "the record's last frame (with fin) arrives first and waits; the record completes when the gap is filled",
    [.data(offset: 20, fin: true, bytes: Array(recordA[20...])), .data(offset: 0, fin: false, bytes: Array(recordA[..<20]))],
    records: [recordA])
addStream(
    "too_many_early_frames", "257 one-byte frames after a gap at offset 0: 256 may wait, the 257th is a protocol error",
    (1...257).map { LinkFrame.data(offset: $0, fin: false, bytes: [UInt8($0 & 0xFF)]) }, records: [], failsAt: 256)
// §12.3: a fin on a frame the reader ignores, and early frames at an offset already waiting.
addStream(
    "fin_of_an_ignored_frame",
    "bytes 0–33 without fin, the same bytes again with fin, then 16 bytes with fin: a frame ending at or before the reader's position is ignored whole, its fin too, so one 50-byte record",
    [
        .data(offset: 0, fin: false, bytes: recordA), .data(offset: 0, fin: true, bytes: recordA),
        .data(offset: 34, fin: true, bytes: recordB),
    ], records: [recordA + recordB])
addStream(
    "early_frame_replaced",
    "bytes 20–24 arrive early, then bytes 20–33 with fin at the same offset, then bytes 0–19: the later early frame replaces the waiting one",
    [
        .data(offset: 20, fin: false, bytes: Array(recordA[20..<25])), .data(offset: 20, fin: true, bytes: Array(recordA[20...])),
        .data(offset: 0, fin: false, bytes: Array(recordA[..<20])),
    ], records: [recordA])
let gapRecord = pattern(257)
func gapFrame(_ offset: Int, fin: Bool = false) -> LinkFrame { .data(offset: offset, fin: fin, bytes: [gapRecord[offset]]) }
addStream(
    "early_frames_counted_by_offset",
    "255 one-byte frames after a gap at offset 0, offset 1 again (it replaces the waiting one), offset 256 with fin (the 256th waiting), then offset 0: one 257-byte record",
    (1...255).map { gapFrame($0) } + [gapFrame(1), gapFrame(256, fin: true), gapFrame(0)], records: [gapRecord])
addStream(
    "early_frame_again_while_256_wait",
    "256 one-byte frames wait after a gap at offset 0, then offset 1 again: a protocol error, though it would only replace a waiting frame",
    (1...256).map { gapFrame($0) } + [gapFrame(1)], records: [], failsAt: 256)
// §12.3: how a sender cuts its records into DATA frames.
var sendCases: [[String: Any]] = []
@MainActor func addSend(_ name: String, _ why: String, records: [[UInt8]], mtu: Int, from: Int? = nil) {
    var stream: [UInt8] = []
    var ends: [Int] = []
    for record in records {
        stream += record
        ends.append(stream.count)
    }
    let frames = LinkFrame.cut(stream, recordEnds: ends, from: from ?? 0, mtu: mtu)
    var c: [String: Any] = [
        "name": name, "description": why, "records": records.map(hex), "mtu": mtu, "frames": frames.map { hex($0.encoded) },
    ]
    if let from { c["from"] = from }
    sendCases.append(c)
}
addSend(
    "cut_to_the_mtu",
    "records of 34 and 16 bytes at MTU 20: each frame as long as the MTU allows with its header (1 byte below offset 16, then 2), never past the end of a record",
    records: [recordA, recordB], mtu: 20)
addSend(
    "cut_at_record_ends",
    "the same records at MTU 185: one frame each, never one frame for the end of a record and the start of the next",
    records: [recordA, recordB], mtu: 185)
addSend(
    "cut_again_from_the_first_unacknowledged_byte",
    "a 100-byte record sent again from byte 50 (the first byte not acknowledged) at MTU 20: re-cut from there",
    records: [pattern(100)], mtu: 20, from: 50)
let linkStreams: [String: Any] = [
    "comment":
        "Nearby-session streams (docs/protocol.md §12.3). 'cases': a fresh reader given the DATA frames of 'frames' (hex, in arrival order) hands out exactly 'records' (hex, in order); with 'fails_at', the frame at that index (0-based) is a protocol error and the records before it are as listed. 'send': a sender holding 'records' cuts exactly 'frames' at 'mtu', from offset 'from' if given, else 0.",
    "cases": streamCases,
    "send": sendCases,
]

// Nearby session (docs/protocol.md §12): fixed ephemeral keys make every byte deterministic
// except the receipt's ECDSA signature, which is fixed here once generated.
func agreementKey(_ label: String) throws -> P256.KeyAgreement.PrivateKey {
    try P256.KeyAgreement.PrivateKey(
        rawRepresentation: Array(SHA256.hash(data: Array("offline-wallet session key \(label)".utf8))))
}
let payeeEphemeral = try agreementKey("payee"), payerEphemeral = try agreementKey("payer")
let sessionRequest = try PaymentRequest(
    payee: bob.publicKey, currency: eur, amount: 3_000, nonce: nonce(0xB1), expiresAt: now + 600, payeeName: "Bob",
    hints: [.tcp("127.0.0.1:7000")],
    sessionKey: PublicKeyBytes(uncheckedBytes: Array(payeeEphemeral.publicKey.compressedRepresentation)))
var sessionPayer = try NearbyPayer(request: sessionRequest, bundle: bundle1.encoded, ephemeral: payerEphemeral)
let sessionMTU = 185
let payerFrames = sessionPayer.frames(mtu: sessionMTU, now: .zero, rto: .seconds(1))
var sessionPayee = try NearbyPayee(request: sessionRequest, ephemeral: payeeEphemeral)
for frame in payerFrames { _ = try sessionPayee.handle(frame, now: .zero) }
let sessionReceipt = try Receipt.sign(
    paymentID: required(bundle1.paymentID, "payment id"), nonce: nonce(0xB1), currency: eur, amount: 3_000, receivedAt: now,
    transcriptHash: sessionPayer.transcriptHash, payee: bob)
try sessionPayee.reply(receipt: sessionReceipt.encoded)
let payeeFrames = sessionPayee.frames(mtu: sessionMTU, now: .zero, rto: .seconds(1))
let sessionKeys = sessionPayer.keys.rawKeys
let session: [String: Any] = [
    "comment": """
    One nearby session (docs/protocol.md §12) at MTU \(sessionMTU). Private keys are raw P-256 scalars. The payer's frames \
    carry its hello and the sealed bundle; the payee's carry the sealed receipt (the ACK of the payment is implied by the \
    reply and not sent). A compatible implementation given these keys, request and bundle produces these exact frames.
    """,
    "mtu": sessionMTU,
    "payee_ephemeral_private": hex(Array(payeeEphemeral.rawRepresentation)),
    "payer_ephemeral_private": hex(Array(payerEphemeral.rawRepresentation)),
    "request": hex(sessionRequest.encoded),
    "bundle": hex(bundle1.encoded),
    "hello": hex([1] + Array(payerEphemeral.publicKey.compressedRepresentation)),
    "transcript_hash": sessionPayer.transcriptHash.hex,
    "key_payer_to_payee": hex(sessionKeys.payerToPayee),
    "key_payee_to_payer": hex(sessionKeys.payeeToPayer),
    "receipt": hex(sessionReceipt.encoded),
    "payer_frames": payerFrames.map { hex($0.encoded) },
    "payee_frames": payeeFrames.map { hex($0.encoded) },
]

try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
let only = CommandLine.arguments.count > 2 ? Set(CommandLine.arguments[2...]) : nil
for (name, object) in [
    ("keys", keys), ("messages", messages), ("verification", verification), ("session", session), ("decoding", decoding),
    ("fraud-proofs", fraudProofs), ("qr-frames", qr), ("link-frames", linkFrames), ("link-streams", linkStreams),
]
where only?.contains(name) ?? true {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    let path = "\(outDir)/\(name).json"
    guard let committed = FileManager.default.contents(atPath: path) else {
        try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
        continue
    }
    let (text, added) = try appendingNewCases(
        to: String(decoding: committed, as: UTF8.self), from: String(decoding: data, as: UTF8.self),
        arrays: ["cases", "write", "read", "send"])
    guard !added.isEmpty else {
        print("kept \(path): no new case")
        continue
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    print("appended to \(path): \(added.joined(separator: ", "))")
}
print("\(cases.count) verification cases; 1-hop bundle is \(bundle1.encoded.count) bytes")
