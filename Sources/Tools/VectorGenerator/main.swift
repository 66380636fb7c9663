// Writes the protocol test vectors (docs/vectors/*.json) from fixed keys.
// Usage: swift run wallet-vectors [output-directory [file …]]   (default: docs/vectors, every file;
// e.g. `wallet-vectors docs/vectors session` rewrites session.json only)
// ECDSA signatures are randomized, so a rerun changes signature bytes but never validity;
// the committed files are the reference, and OfflineNotesTests checks every one.
import Crypto
import DevIssuer
import Foundation
import NearbySession
import OfflineNotes

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
let issuer = try DevIssuer(currency: eur, now: now, maxHops: 4, maxOfflineHolding: 1_000_000, authority: authority, issuingKey: issuingKey)
let stranger = try DevIssuer(currency: eur, now: now, authority: try key("stranger-authority"), issuingKey: try key("stranger-issuer"))

func id(_ n: UInt8) -> NoteID { NoteID(uncheckedBytes: Array(repeating: n, count: 16)) }
func nonce(_ n: UInt8) -> Nonce { Nonce(uncheckedBytes: Array(repeating: n, count: 16)) }

func note(_ amount: UInt64, to owner: SoftwareSigner, n: UInt8, issuedAt: Timestamp = now, lifetime: UInt64 = 30 * 86_400, by signer: (any MessageSigner)? = nil) throws -> Chain {
    let s: any MessageSigner = signer ?? issuingKey
    return Chain(note: try IssuedNote.issue(noteID: id(n), currency: eur, amount: amount, owner: owner.publicKey, issuedAt: issuedAt, expiresAt: issuedAt + lifetime, issuer: s))
}

func transfer(_ chain: Chain, by signer: any MessageSigner, _ outputs: [(SoftwareSigner, UInt64)], nonce n: Nonce, input: StateRef? = nil, createdAt: Timestamp = now + 60) throws -> Chain {
    let t = try Transfer.sign(input: input ?? chain.heldRef, outputs: outputs.map { TransferOutput(owner: $0.0.publicKey, amount: $0.1) }, nonce: n, createdAt: createdAt, signer: signer)
    return chain.appending(t, holding: 0)
}

func request(_ payee: SoftwareSigner, _ amount: UInt64, _ n: Nonce, currency: Currency = eur, expiresAt: Timestamp = now + 600) throws -> PaymentRequest {
    try PaymentRequest(payee: payee.publicKey, currency: currency, amount: amount, nonce: n, expiresAt: expiresAt, payeeName: "Bob", hints: [.tcp("127.0.0.1:7400")])
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
let receipt1 = try Receipt.sign(paymentID: required(bundle1.paymentID, "payment id"), nonce: request1.nonce, currency: eur, amount: 3_000, receivedAt: now + 61, payee: bob)

let keys: [String: Any] = [
    "comment": "Private keys are P-256 scalars (hex, big-endian); public keys compressed SEC1. key_id = first 8 bytes of SHA-256(public key).",
    "keys": Dictionary(uniqueKeysWithValues: [("authority", authority), ("issuer", issuingKey), ("alice", alice), ("bob", bob), ("carol", carol), ("mallory", mallory)].map { name, k in
        (name, ["private": hex(Array(k.privateKey.rawRepresentation)), "public": k.publicKey.hex, "key_id": k.publicKey.keyID.hex])
    }),
]

func noteFields(_ n: IssuedNote) -> [String: Any] {
    ["hex": hex(n.encoded), "body": hex(n.body), "signature": hex(n.signature), "note_id": n.noteID.hex, "issuer_key_id": n.issuerKeyID.hex,
     "currency": n.currency.code, "amount": n.amount, "owner": n.owner.hex, "issued_at": n.issuedAt, "expires_at": n.expiresAt,
     "hash": n.hash.hex, "state_ref": n.stateRef.hex]
}
func transferFields(_ t: Transfer) -> [String: Any] {
    ["hex": hex(t.encoded), "body": hex(t.body), "signature": hex(t.signature), "input": t.input.hex, "signer_key_id": t.signerKeyID.hex,
     "outputs": t.outputs.map { ["owner": $0.owner.hex, "amount": $0.amount] }, "nonce": t.nonce.hex, "created_at": t.createdAt,
     "hash": t.hash.hex, "output_refs": t.outputs.indices.map { t.outputRef($0).hex }]
}
func chainFields(_ c: Chain) -> [String: Any] {
    ["hex": hex(c.encoded), "hops": c.hops, "held_index": Int(c.heldIndex), "held_ref": c.heldRef.hex, "held_owner": required(c.heldOutput, "held output").owner.hex, "held_amount": required(c.heldOutput, "held output").amount]
}

let messages: [String: Any] = [
    "comment": "Valid messages built from keys.json. Verify at now = \(now).",
    "now": now,
    "keyset": ["hex": hex(issuer.keyset.encoded), "authority": authority.publicKey.hex, "sequence": issuer.keyset.sequence,
               "keys": issuer.keyset.keys.map { ["key_id": $0.keyID.hex, "public": $0.publicKey.hex, "valid_from": $0.validFrom, "valid_until": $0.validUntil] }],
    "limits": ["hex": hex(issuer.limits.encoded), "currency": "EUR", "max_offline_holding": issuer.limits.maxOfflineHolding, "max_hops": issuer.limits.maxHops,
               "note_lifetime": issuer.limits.noteLifetime, "redemption_grace": issuer.limits.redemptionGrace, "issued_at": issuer.limits.issuedAt],
    "issued_note": noteFields(n1.note),
    "transfer_1hop": transferFields(oneHop.transfers[0]),
    "chain_1hop": chainFields(oneHop),
    "chain_3hop": chainFields(threeHop),
    "payment_request": ["hex": hex(request1.encoded), "payee": bob.publicKey.hex, "amount": 3_000, "currency": "EUR", "nonce": request1.nonce.hex, "expires_at": request1.expiresAt, "payee_name": "Bob", "hints": [["kind": 1, "value": "127.0.0.1:7400"]]],
    "payment_bundle": ["hex": hex(bundle1.encoded), "payment_id": required(bundle1.paymentID, "payment id").hex, "size": bundle1.encoded.count],
    "receipt": ["hex": hex(receipt1.encoded), "payment_id": receipt1.paymentID.hex, "amount": 3_000, "received_at": receipt1.receivedAt],
]

// Verification cases: (name, bundle bytes, request, now, expected)
var cases: [[String: Any]] = []
@MainActor func add(_ name: String, _ why: String, _ bundle: [UInt8], _ req: PaymentRequest, now at: Timestamp = now, expect: String, amount: UInt64? = nil) {
    var c: [String: Any] = ["name": name, "description": why, "now": at, "request": hex(req.encoded), "bundle": hex(bundle), "expect": expect]
    if let amount { c["amount"] = amount }
    cases.append(c)
}
func b(_ chains: Chain...) throws -> [UInt8] { try PaymentBundle(chains: chains).encoded }

add("ok_1hop", "alice pays bob 30.00 from a 100.00 note, 70.00 change", bundle1.encoded, request1, expect: "ok", amount: 3_000)
add("ok_3hop", "alice → carol → alice → bob", try b(threeHop), try request(bob, 2_500, nonce(0xB3)), expect: "ok", amount: 2_500)
let twoA = try transfer(try note(1_000, to: alice, n: 3), by: alice, [(bob, 1_000)], nonce: nonce(0xB4))
let twoB = try transfer(try note(2_000, to: alice, n: 4), by: alice, [(bob, 500), (alice, 1_500)], nonce: nonce(0xB4))
add("ok_two_notes", "two chains, one exact and one with change", try b(twoA, twoB), try request(bob, 1_500, nonce(0xB4)), expect: "ok", amount: 1_500)
add("ok_open_amount", "request with amount 0: payer chooses", bundle1.encoded, try request(bob, 0, nonce(0xB1)), expect: "ok", amount: 3_000)
add("truncated", "last byte missing", Array(bundle1.encoded.dropLast()), request1, expect: "truncated")
add("trailing_byte", "one byte too many", bundle1.encoded + [0], request1, expect: "malformed")
var v2 = bundle1.encoded; v2[1] = 2
add("unsupported_version", "bundle version 2", v2, request1, expect: "unsupported_version")
var t1 = bundle1.encoded; t1[0] = 0x01
add("unexpected_message_type", "a note where a bundle belongs", t1, request1, expect: "unexpected_message_type")
add("unknown_issuer_key", "note signed by another issuer", try b(try transfer(Chain(note: try IssuedNote.issue(noteID: id(5), currency: eur, amount: 3_000, owner: alice.publicKey, issuedAt: now, expiresAt: now + 86_400, issuer: stranger.issuingKey)), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))), request1, expect: "unknown_issuer_key")
add("issuer_key_outside_validity", "issued two days before the key's window opened", try b(try transfer(try note(3_000, to: alice, n: 6, issuedAt: now - 2 * 86_400), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))), request1, expect: "issuer_key_outside_validity")
add("bad_issuer_signature", "note signed by mallory under the issuer's key id", try b(try transfer(try note(3_000, to: alice, n: 7, by: Impostor(claimed: issuingKey.publicKey, actual: mallory)), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))), request1, expect: "bad_issuer_signature")
add("signer_not_owner", "mallory signs alice's note with her own key", try b(try transfer(n1, by: mallory, [(bob, 3_000), (mallory, 7_000)], nonce: nonce(0xB1))), request1, expect: "signer_not_owner")
add("bad_owner_signature", "mallory signs alice's note claiming alice's key id", try b(try transfer(n1, by: Impostor(claimed: alice.publicKey, actual: mallory), [(bob, 3_000), (mallory, 7_000)], nonce: nonce(0xB1))), request1, expect: "bad_owner_signature")
add("broken_chain", "transfer input is another note's state", try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), input: try note(10_000, to: alice, n: 8).heldRef)), request1, expect: "broken_chain")
add("value_not_conserved", "outputs sum to 100.01 from a 100.00 note", try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_001)], nonce: nonce(0xB1))), request1, expect: "value_not_conserved")
add("zero_amount", "an output of zero", try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000), (carol, 0)], nonce: nonce(0xB1))), request1, expect: "zero_amount")
add("amount_overflow", "note amount above 2^63-1", try b(try transfer(try note(UInt64(Int64.max) + 1, to: alice, n: 9), by: alice, [(bob, 3_000), (alice, UInt64(Int64.max) - 2_999)], nonce: nonce(0xB1))), request1, expect: "amount_overflow")
add("note_expired", "verified one second after the note's expiry", try b(try transfer(try note(3_000, to: alice, n: 10, lifetime: 100), by: alice, [(bob, 3_000)], nonce: nonce(0xB1))), request1, now: now + 101, expect: "note_expired")
var fiveHop = try note(5_000, to: alice, n: 11)
for (i, (from, to)) in [(alice, carol), (carol, alice), (alice, carol), (carol, alice), (alice, bob)].enumerated() {
    fiveHop = try transfer(fiveHop, by: from, [(to, 5_000)], nonce: i == 4 ? nonce(0xB5) : nonce(UInt8(0x50 + i)))
}
add("too_many_hops", "five transfers; limits allow four", try b(fiveHop), try request(bob, 5_000, nonce(0xB5)), expect: "too_many_hops")
add("wrong_currency", "request in USD", bundle1.encoded, try request(bob, 3_000, nonce(0xB1), currency: required(Currency("USD"), "USD")), expect: "wrong_currency")
add("wrong_recipient", "request from carol", bundle1.encoded, try request(carol, 3_000, nonce(0xB1)), expect: "wrong_recipient")
add("wrong_amount", "request for 30.01", bundle1.encoded, try request(bob, 3_001, nonce(0xB1)), expect: "wrong_amount")
add("nonce_mismatch", "bundle answers another request", bundle1.encoded, try request(bob, 3_000, nonce(0xEE)), expect: "nonce_mismatch")
add("request_expired", "signed at the request's expiry", try b(try transfer(n1, by: alice, [(bob, 3_000), (alice, 7_000)], nonce: nonce(0xB1), createdAt: request1.expiresAt)), request1, expect: "request_expired")
add("ok_delivered_late", "signed before the request's expiry, verified after it", bundle1.encoded, request1, now: request1.expiresAt + 60, expect: "ok", amount: 3_000)
add("duplicate_payment", "the same chain twice", try b(oneHop, oneHop), try request(bob, 6_000, nonce(0xB1)), expect: "duplicate_payment")
let spendAgain = try transfer(n1, by: alice, [(bob, 2_000), (alice, 8_000)], nonce: nonce(0xB1))
add("double_spend", "alice's note spent by two different transfers in one bundle", try b(oneHop, spendAgain), try request(bob, 5_000, nonce(0xB1)), expect: "double_spend")
// One note paid to bob twice in one bundle: held by the first chain, and passed on by bob
// (to carol, who pays him back) in the second. Counted twice unless a chain may not spend what
// an earlier chain holds (step 8), nor hold what an earlier chain spends (step 7).
let heldOnce = try transfer(try note(4_000, to: alice, n: 12), by: alice, [(bob, 4_000)], nonce: nonce(0xB6))
let passedOn = try transfer(try transfer(heldOnce, by: bob, [(carol, 4_000)], nonce: nonce(0x61)), by: carol, [(bob, 4_000)], nonce: nonce(0xB6))
add("duplicate_payment_held_then_spent", "the first chain holds bob's state, the second spends it and comes back to bob", try b(heldOnce, passedOn), try request(bob, 8_000, nonce(0xB6)), expect: "duplicate_payment")
add("duplicate_payment_spent_then_held", "the first chain spends bob's state, the second holds it", try b(passedOn, heldOnce), try request(bob, 8_000, nonce(0xB6)), expect: "duplicate_payment")

let verification: [String: Any] = [
    "comment": "Verify each bundle against its request with the keyset and limits of messages.json, at 'now'. 'expect' is 'ok' or the error code of docs/protocol.md §6.",
    "cases": cases,
]

// Nearby session (docs/protocol.md §12): fixed ephemeral keys make every byte deterministic
// except the receipt's ECDSA signature, which is fixed here once generated.
func agreementKey(_ label: String) throws -> P256.KeyAgreement.PrivateKey {
    try P256.KeyAgreement.PrivateKey(rawRepresentation: Array(SHA256.hash(data: Array("offline-wallet session key \(label)".utf8))))
}
let payeeEphemeral = try agreementKey("payee"), payerEphemeral = try agreementKey("payer")
let sessionRequest = try PaymentRequest(
    payee: bob.publicKey, currency: eur, amount: 3_000, nonce: nonce(0xB1), expiresAt: now + 600, payeeName: "Bob",
    hints: [.tcp("127.0.0.1:7000")], sessionKey: PublicKeyBytes(uncheckedBytes: Array(payeeEphemeral.publicKey.compressedRepresentation)))
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
for (name, object) in [("keys", keys), ("messages", messages), ("verification", verification), ("session", session)]
where only?.contains(name) ?? true {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: "\(outDir)/\(name).json"))
    print("wrote \(outDir)/\(name).json")
}
print("\(cases.count) verification cases; 1-hop bundle is \(bundle1.encoded.count) bytes")
