import Crypto
import Foundation
import OfflineNotes
import Testing

/// Checks every file under docs/vectors, so the spec's examples can never drift from the code.
@Suite struct VectorTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/vectors")

    static func load(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("\(name).json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func bytes(_ value: Any?) throws -> [UInt8] {
        let text = try #require(value as? String)
        return try #require(Hex.decode(text))
    }
    static func uint(_ value: Any?) throws -> UInt64 { try #require((value as? NSNumber)?.uint64Value) }

    let messages: [String: Any]
    let verifier: NoteVerifier
    init() throws {
        messages = try Self.load("messages")
        let keyset = try #require(messages["keyset"] as? [String: Any])
        let authority = try #require(PublicKeyBytes(bytes: try Self.bytes(keyset["authority"])))
        let limits = try #require(messages["limits"] as? [String: Any])
        verifier = NoteVerifier(
            keyset: try Keyset(decoding: try Self.bytes(keyset["hex"]), authority: authority),
            limits: try Limits(decoding: try Self.bytes(limits["hex"]), authority: authority))
    }

    @Test func keysDeriveTheirPublicKeysAndIDs() throws {
        let keys = try #require(try Self.load("keys")["keys"] as? [String: [String: String]])
        #expect(keys.count == 6)
        for (name, k) in keys {
            let signer = try SoftwareSigner(rawRepresentation: try Self.bytes(k["private"]))
            #expect(signer.publicKey.hex == k["public"], "\(name)")
            #expect(signer.publicKey.keyID.hex == k["key_id"], "\(name)")
        }
    }

    @Test func messagesDecodeToTheirListedFields() throws {
        let now = try Self.uint(messages["now"])
        let n = try #require(messages["issued_note"] as? [String: Any])
        let note = try IssuedNote(decoding: try Self.bytes(n["hex"]))
        #expect(note.body == (try Self.bytes(n["body"])))
        #expect(note.noteID.hex == n["note_id"] as? String)
        #expect(note.amount == (try Self.uint(n["amount"])))
        #expect(note.owner.hex == n["owner"] as? String)
        #expect(note.hash.hex == n["hash"] as? String)
        #expect(note.stateRef.hex == n["state_ref"] as? String)

        let t = try #require(messages["transfer_1hop"] as? [String: Any])
        let transfer = try Transfer(decoding: try Self.bytes(t["hex"]))
        #expect(transfer.input == note.stateRef)
        #expect(transfer.hash.hex == t["hash"] as? String)
        #expect(transfer.outputs.indices.map { transfer.outputRef($0).hex } == t["output_refs"] as? [String])

        for name in ["chain_1hop", "chain_3hop"] {
            let c = try #require(messages[name] as? [String: Any])
            let state = try verifier.verifyChain(try Self.bytes(c["hex"]), now: now)
            #expect(state.ref.hex == c["held_ref"] as? String, "\(name)")
            #expect(state.owner.hex == c["held_owner"] as? String, "\(name)")
            #expect(state.amount == (try Self.uint(c["held_amount"])), "\(name)")
            #expect(state.hops == (c["hops"] as? Int), "\(name)")
        }

        let r = try #require(messages["payment_request"] as? [String: Any])
        let request = try PaymentRequest(decoding: try Self.bytes(r["hex"]))
        #expect(request.amount == (try Self.uint(r["amount"])))
        #expect(request.payeeName == r["payee_name"] as? String)
        let p = try #require(messages["payment_bundle"] as? [String: Any])
        let bundle = try PaymentBundle(decoding: try Self.bytes(p["hex"]))
        #expect(bundle.paymentID?.hex == p["payment_id"] as? String)
        let rc = try #require(messages["receipt"] as? [String: Any])
        let receipt = try Receipt(decoding: try Self.bytes(rc["hex"]))
        try receipt.verify(for: request, paymentID: try #require(bundle.paymentID), amount: 3_000)
    }

    @Test func everyVerificationCaseGivesItsExpectedResult() throws {
        let cases = try #require(try Self.load("verification")["cases"] as? [[String: Any]])
        #expect(cases.count >= 25)
        var codes = Set<String>()
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let expected = try #require(c["expect"] as? String)
            let request = try PaymentRequest(decoding: try Self.bytes(c["request"]))
            let bundle = try Self.bytes(c["bundle"])
            let now = try Self.uint(c["now"])
            do {
                let paid = try verifier.verifyPayment(bundle, request: request, now: now)
                #expect(expected == "ok", "\(name): verified but expected \(expected)")
                #expect(paid.amount == (try Self.uint(c["amount"])), "\(name)")
            } catch let error as VerificationError {
                #expect(error.code == expected, "\(name): got \(error.code)")
            }
            codes.insert(expected)
        }
        // Every error a bundle can produce has a vector.
        for code in [
            "truncated", "malformed", "unsupported_version", "unexpected_message_type", "unknown_issuer_key",
            "issuer_key_outside_validity", "bad_issuer_signature", "signer_not_owner", "bad_owner_signature",
            "broken_chain", "value_not_conserved", "zero_amount", "amount_overflow", "note_expired", "too_many_hops",
            "wrong_currency", "wrong_recipient", "wrong_amount", "nonce_mismatch", "request_expired",
            "duplicate_payment", "double_spend", "ok",
        ] {
            #expect(codes.contains(code), "no vector for \(code)")
        }
    }
}
