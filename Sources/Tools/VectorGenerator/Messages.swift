import OfflineNotes

extension Fixtures {
    /// `keys.json`: every fixed key, private and public, with its key id (§2.2).
    func keysVectors() -> [String: Any] {
        let signers = [
            ("authority", authority), ("issuer", issuingKey), ("alice", alice), ("bob", bob), ("carol", carol),
            ("mallory", mallory),
        ]
        return [
            "comment": """
            Private keys are P-256 scalars (hex, big-endian); public keys compressed SEC1. key_id = first 8 bytes of \
            SHA-256(public key).
            """,
            "keys": Dictionary(
                uniqueKeysWithValues: signers.map { name, signer in
                    (
                        name,
                        [
                            "private": hex(Array(signer.privateKey.rawRepresentation)), "public": signer.publicKey.hex,
                            "key_id": signer.publicKey.keyID.hex,
                        ]
                    )
                }),
        ]
    }

    /// `messages.json`: one valid message of each type with its decoded fields, and the keyset and
    /// limits every other file uses (§4).
    func messagesVectors(_ shared: SharedChains) throws -> [String: Any] {
        let request = shared.bobsRequest
        let bundle = shared.oneHopBundle
        let receipt = try Receipt.sign(
            paymentID: required(bundle.paymentID, "payment id"), nonce: request.nonce, currency: eur, amount: 3_000,
            receivedAt: now + 61, payee: bob)
        return [
            "comment": "Valid messages built from keys.json. Verify at now = \(now).",
            "now": now,
            "keyset": [
                "hex": hex(issuer.keyset.encoded), "authority": authority.publicKey.hex, "sequence": issuer.keyset.sequence,
                "keys": issuer.keyset.keys.map {
                    [
                        "key_id": $0.keyID.hex, "public": $0.publicKey.hex, "valid_from": $0.validFrom,
                        "valid_until": $0.validUntil,
                    ]
                },
            ],
            "limits": [
                "hex": hex(issuer.limits.encoded), "currency": "EUR", "max_offline_holding": issuer.limits.maxOfflineHolding,
                "max_hops": issuer.limits.maxHops,
                "note_lifetime": issuer.limits.noteLifetime, "redemption_grace": issuer.limits.redemptionGrace,
                "issued_at": issuer.limits.issuedAt,
            ],
            "issued_note": noteFields(shared.aliceNote.note),
            "transfer_1hop": transferFields(shared.oneHop.transfers[0]),
            "chain_1hop": chainFields(shared.oneHop),
            "chain_3hop": chainFields(shared.threeHop),
            "payment_request": [
                "hex": hex(request.encoded), "payee": bob.publicKey.hex, "amount": 3_000, "currency": "EUR",
                "nonce": request.nonce.hex, "expires_at": request.expiresAt, "payee_name": "Bob",
                "hints": [["kind": 1, "value": "127.0.0.1:7400"]],
            ],
            "payment_bundle": [
                "hex": hex(bundle.encoded), "payment_id": required(bundle.paymentID, "payment id").hex,
                "size": bundle.encoded.count,
            ],
            "receipt": [
                "hex": hex(receipt.encoded), "payment_id": receipt.paymentID.hex, "amount": 3_000,
                "received_at": receipt.receivedAt,
            ],
        ]
    }
}

private func noteFields(_ note: IssuedNote) -> [String: Any] {
    [
        "hex": hex(note.encoded), "body": hex(note.body), "signature": hex(note.signature), "note_id": note.noteID.hex,
        "issuer_key_id": note.issuerKeyID.hex,
        "currency": note.currency.code, "amount": note.amount, "owner": note.owner.hex, "issued_at": note.issuedAt,
        "expires_at": note.expiresAt, "hash": note.hash.hex, "state_ref": note.stateRef.hex,
    ]
}

private func transferFields(_ transfer: Transfer) -> [String: Any] {
    [
        "hex": hex(transfer.encoded), "body": hex(transfer.body), "signature": hex(transfer.signature),
        "input": transfer.input.hex, "signer_key_id": transfer.signerKeyID.hex,
        "outputs": transfer.outputs.map { ["owner": $0.owner.hex, "amount": $0.amount] }, "nonce": transfer.nonce.hex,
        "created_at": transfer.createdAt,
        "hash": transfer.hash.hex, "output_refs": transfer.outputs.indices.map { transfer.outputRef($0).hex },
    ]
}

private func chainFields(_ chain: Chain) -> [String: Any] {
    [
        "hex": hex(chain.encoded), "hops": chain.hops, "held_index": Int(chain.heldIndex), "held_ref": chain.heldRef.hex,
        "held_owner": required(chain.heldOutput, "held output").owner.hex,
        "held_amount": required(chain.heldOutput, "held output").amount,
    ]
}
