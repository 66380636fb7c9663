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
    let authority: PublicKeyBytes
    init() throws {
        messages = try Self.load("messages")
        let keyset = try #require(messages["keyset"] as? [String: Any])
        authority = try #require(PublicKeyBytes(bytes: try Self.bytes(keyset["authority"])))
        let limits = try #require(messages["limits"] as? [String: Any])
        verifier = NoteVerifier(
            keyset: try Keyset(decoding: try Self.bytes(keyset["hex"]), authority: authority),
            limits: try Limits(decoding: try Self.bytes(limits["hex"]), authority: authority))
    }

    /// The verifier of one verification case: messages.json's keyset and limits unless the case
    /// names its own (optional fields `keyset`, `limits`; docs/vectors/README.md).
    func verifier(for c: [String: Any]) throws -> NoteVerifier {
        let keyset = try c["keyset"].map { try Keyset(decoding: try Self.bytes($0), authority: authority) } ?? verifier.keyset
        let limits = try c["limits"].map { try Limits(decoding: try Self.bytes($0), authority: authority) } ?? verifier.limits
        return NoteVerifier(keyset: keyset, limits: limits)
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
        #expect(cases.count >= 46)
        var codes = Set<String>()
        var fields = Set<String>()
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let expected = try #require(c["expect"] as? String)
            let request = try PaymentRequest(decoding: try Self.bytes(c["request"]))
            let bundle = try Self.bytes(c["bundle"])
            let now = try Self.uint(c["now"])
            let held = Set(try (c["held_states"] as? [String] ?? []).map { try #require(StateRef(bytes: try Self.bytes($0))) })
            for field in ["keyset", "limits", "held_states", "received_states"] where c[field] != nil { fields.insert(field) }
            do {
                let paid = try verifier(for: c).verifyPayment(bundle, request: request, now: now, isKnownState: held.contains)
                #expect(expected == "ok", "\(name): verified but expected \(expected)")
                #expect(paid.amount == (try Self.uint(c["amount"])), "\(name)")
                if let states = c["received_states"] as? [String] {
                    #expect(paid.received.map(\.ref.hex) == states, "\(name): received states")
                }
            } catch let error as VerificationError {
                #expect(error.code == expected, "\(name): got \(error.code)")
            }
            codes.insert(expected)
        }
        // Every optional field of the format is used by some case (so this reader is checked on it).
        #expect(fields == ["keyset", "limits", "held_states", "received_states"])
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

    /// docs/vectors/decoding.json: messages judged by their bytes alone (§4.3, §4.5).
    @Test func everyDecodingCaseGivesItsExpectedResult() throws {
        let cases = try #require(try Self.load("decoding")["cases"] as? [[String: Any]])
        #expect(cases.count >= 11)
        var addresses = 0
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let expected = try #require(c["expect"] as? String)
            let bytes = try Self.bytes(c["hex"])
            do {
                switch c["message"] as? String {
                case "payment_request":
                    let request = try PaymentRequest(decoding: bytes)
                    let hints = try #require(c["hints"] as? [[String: Any]])
                    #expect(request.hints.map { Int($0.kindByte) } == hints.map { $0["kind"] as? Int ?? -1 }, "\(name)")
                    #expect(request.hints.map { Hex.encode($0.value) } == hints.map { $0["value"] as? String ?? "" }, "\(name)")
                    #expect(request.hints.map(\.isUsable) == hints.map { $0["usable"] as? Bool }, "\(name): usable hints")
                    // The address a payer reads from a usable TCP hint, where the case gives it.
                    for (hint, fields) in zip(request.hints, hints) where fields["host"] != nil || fields["port"] != nil {
                        #expect(hint.tcpAddress?.host == fields["host"] as? String, "\(name): host")
                        #expect(hint.tcpAddress?.port == fields["port"] as? Int, "\(name): port")
                        addresses += 1
                    }
                    #expect(request.encoded == bytes, "\(name): re-encodes")
                case "chain":
                    let chain = try Chain(decoding: bytes)
                    #expect(chain.heldRef.hex == c["held_ref"] as? String, "\(name)")
                    #expect(chain.heldRef.hex != c["other_output_ref"] as? String, "\(name)")
                case "payment_bundle":
                    _ = try PaymentBundle(decoding: bytes)
                case "keyset":
                    _ = try Keyset(decoding: bytes, authority: authority)
                default:
                    Issue.record("\(name): unknown message kind")
                }
                #expect(expected == "ok", "\(name): decoded but expected \(expected)")
            } catch let error as VerificationError {
                #expect(error.code == expected, "\(name): got \(error.code)")
            }
        }
        #expect(addresses > 0, "no case gives a hint's host and port")
    }

    /// docs/vectors/fraud-proofs.json (§7): each proof gives its expected result, valid ones name the cheater.
    @Test func everyFraudProofCaseGivesItsExpectedResult() throws {
        let cases = try #require(try Self.load("fraud-proofs")["cases"] as? [[String: Any]])
        #expect(cases.count >= 18)
        var codes = Set<String>()
        for c in cases {
            let name = c["name"] as? String ?? "?"
            let expected = try #require(c["expect"] as? String)
            let (chain, first, second) = (try Self.bytes(c["chain"]), try Self.bytes(c["first"]), try Self.bytes(c["second"]))
            let now = try Self.uint(c["now"])
            do throws(VerificationError) {
                // Decoded in the order of §7 (chain, first, second): a decoding error is the proof's error.
                let proof = FraudProof(
                    chain: try Chain(decoding: chain), first: try Transfer(decoding: first),
                    second: try Transfer(decoding: second))
                let cheater = try verifier.verify(proof, now: now)
                #expect(expected == "ok", "\(name): valid but expected \(expected)")
                #expect(cheater.hex == c["cheater"] as? String, "\(name)")
            } catch {
                #expect(error.code == expected, "\(name): got \(error.code)")
            }
            let issuer = try #require(c["issuer"] as? [String: Any])
            #expect((issuer["status"] as? Int) == (expected == "ok" ? 200 : 400), "\(name)")
            codes.insert(expected)
        }
        for code in [
            "ok", "malformed", "truncated", "unknown_issuer_key", "bad_issuer_signature", "broken_chain", "bad_owner_signature",
            "signer_not_owner", "value_not_conserved", "too_many_hops",
        ] {
            #expect(codes.contains(code), "no fraud-proof vector for \(code)")
        }
    }
}
