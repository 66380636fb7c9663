import OfflineNotes

extension Fixtures {
    /// `decoding.json`: messages judged by their bytes alone (§2, §4.3, §4.5, §4.8): requests
    /// with their decoded hints, chains, bundles, and keysets checked with `messages.json`'s
    /// authority.
    func decodingVectors(_ shared: SharedChains) throws -> [String: Any] {
        var cases: [[String: Any]] = []
        func addRequest(_ name: String, _ why: String, _ hints: [TransportHint], addresses: Bool = false) throws {
            cases.append([
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
        try addRequest(
            "request_tcp_hint_no_port", "a TCP hint without ':port': decodes; a payer ignores the hint", [.tcp("127.0.0.1")])
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
        try addRequest(
            "request_tcp_hint_signed_port", "a TCP hint with port '+80': not decimal digits, ignored", [.tcp("127.0.0.1:+80")])
        try addRequest("request_tcp_hint_empty_host", "a TCP hint ':7400': empty host, ignored", [.tcp(":7400")])
        try addRequest(
            "request_unknown_hint_kind", "a hint of unknown kind 0x7F: decodes, ignored",
            [TransportHint(kindByte: 0x7F, value: [1, 2, 3]), .tcp("127.0.0.1:7400")])
        try addRequest(
            "request_malformed_hint_then_good",
            "a malformed Bluetooth LE hint, then a well-formed TCP hint: a payer uses the TCP one",
            [TransportHint(kind: .bluetooth, value: [0x01, 0x02]), .tcp("127.0.0.1:7400")])
        // §4.5: a request amount above 2^63 − 1 is amount_overflow, judged once the whole request is read.
        let plainRequest = try requestWith([]).encoded
        let amountAt = 2 + 33 + 3
        let hugeAmount = Array(plainRequest[..<amountAt]) + varint(UInt64(Int64.max) + 1) + Array(plainRequest[(amountAt + 2)...])
        cases.append([
            "name": "request_amount_overflow", "description": "a request for 2^63 minor units", "message": "payment_request",
            "hex": hex(hugeAmount), "expect": "amount_overflow",
        ])
        cases.append([
            "name": "request_amount_overflow_and_trailing_byte",
            "description": "a request for 2^63 minor units with one byte too many: the trailing byte is found first",
            "message": "payment_request", "hex": hex(hugeAmount + [0]), "expect": "malformed",
        ])
        cases.append([
            "name": "request_amount_max", "description": "a request for 2^63 − 1 minor units", "message": "payment_request",
            "hex": hex(Array(plainRequest[..<amountAt]) + varint(UInt64(Int64.max)) + Array(plainRequest[(amountAt + 2)...])),
            "expect": "ok", "hints": [[String: Any]](),
        ])
        cases.append([
            "name": "chain_held_index_without_transfers", "description": "a standalone chain with no transfer and held_index 1",
            "message": "chain",
            "hex": hex(shared.noteHoldingOne.encoded), "expect": "malformed",
        ])
        cases.append([
            "name": "chain_held_index_without_transfers_255",
            "description": "a standalone chain with no transfer and held_index 255",
            "message": "chain",
            "hex": hex(shared.noteHoldingOne.holding(255).encoded), "expect": "malformed",
        ])
        cases.append([
            "name": "bundle_held_index_without_transfers",
            "description": "a bundle whose only chain has no transfer and held_index 1",
            "message": "payment_bundle",
            "hex": hex(try bundleBytes(shared.noteHoldingOne)), "expect": "malformed",
        ])
        cases.append([
            "name": "chain_holding_identical_output_1",
            "description": """
            a chain whose transfer has two identical outputs, holding output 1: held_ref is state_ref(output 1), not \
            output 0's
            """,
            "message": "chain", "hex": hex(shared.twins.holding(1).encoded), "expect": "ok",
            "held_ref": shared.twins.holding(1).heldRef.hex,
            "other_output_ref": shared.twins.heldRef.hex,
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
            """
            'kassé 2:7400': any non-empty text is a host (a space, non-ASCII letters); whether it can be reached is found by \
            connecting
            """,
            [.tcp("kassé 2:7400")], addresses: true)
        try addRequest(
            "request_tcp_hint_unclosed_bracket",
            "'[::1:7400': brackets are removed only as a pair around the whole host: host '[::1'",
            [.tcp("[::1:7400")], addresses: true)
        try addRequest(
            "request_tcp_hint_empty_brackets", "'[]:7400': the host is empty once its brackets are removed: ignored",
            [.tcp("[]:7400")],
            addresses: true)
        try addRequest(
            "request_qr_hint_128_byte_value", "a QR-only hint with a 128-byte value: usable, the value is ignored",
            [TransportHint(kind: .qr, value: Array(repeating: 0x51, count: 128))])
        // §2 rule 2 and §2.1: input that ends inside the header, empty input included.
        for (message, what) in [
            ("payment_request", "request"), ("chain", "chain"), ("payment_bundle", "bundle"), ("keyset", "keyset"),
        ] {
            cases.append([
                "name": "empty_\(what)", "description": "no bytes at all: the input ends inside the header", "message": message,
                "hex": "", "expect": "truncated",
            ])
        }
        cases.append([
            "name": "bundle_type_byte_only", "description": "the bundle's type byte and nothing more",
            "message": "payment_bundle",
            "hex": "05", "expect": "truncated",
        ])
        cases.append([
            "name": "bundle_other_type_byte_only",
            "description": "a note's type byte and nothing more: the type is judged as soon as it is read",
            "message": "payment_bundle",
            "hex": "01", "expect": "unexpected_message_type",
        ])
        // §4.8: the keyset's rules in the order a decoder checks them, with messages.json's authority.
        func addKeyset(_ name: String, _ why: String, _ bytes: [UInt8], expect: String) {
            cases.append(["name": name, "description": why, "message": "keyset", "hex": hex(bytes), "expect": expect])
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
            "keyset_key_count_before_keys",
            "key_count 33 followed by the signature alone: the count is judged before any key is read",
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
            "keyset_key_id_twice", "the same entry twice", try signedKeyset(keysetBody([goodEntry, goodEntry])),
            expect: "malformed")
        addKeyset(
            "keyset_empty_window", "valid_from = valid_until", try signedKeyset(keysetBody([emptyWindow])), expect: "malformed")
        addKeyset(
            "keyset_key_off_the_curve", "a key with prefix 0x02 whose x-coordinate is not on P-256 (key_id its key id)",
            try signedKeyset(keysetBody([keysetEntry(offCurve)])), expect: "malformed")
        addKeyset(
            "keyset_entry_before_next_entry",
            """
            key_count 2, the first entry with an empty window, and the message ending after it: each entry is judged before \
            the next is read
            """,
            keysetBody(count: 2, [emptyWindow]), expect: "malformed")
        addKeyset(
            "keyset_rules_before_signature",
            "an empty window, signed by mallory: decoding rules come before the authority's signature",
            try signedKeyset(keysetBody([emptyWindow]), by: mallory), expect: "malformed")
        addKeyset(
            "keyset_trailing_byte_before_signature",
            "a well-formed keyset signed by mallory with one byte too many: decoding ends before the signature is checked",
            try signedKeyset(keysetBody([goodEntry]), by: mallory) + [0], expect: "malformed")
        addKeyset(
            "keyset_bad_authority_signature", "a well-formed keyset signed by mallory",
            try signedKeyset(keysetBody([goodEntry]), by: mallory), expect: "bad_authority_signature")
        return [
            "comment": """
            Decode 'hex' as the named message (payment_request, chain = standalone type 0x03, payment_bundle, keyset = \
            checked with the authority of messages.json). 'expect' is 'ok' or the error code of docs/protocol.md §6. For \
            requests, 'hints' lists the decoded hints (kind, value hex) in order and whether a payer can use each \
            ('usable', §4.5), and in some cases a usable TCP hint's 'host' and 'port'; for chains, 'held_ref' is the state \
            the chain holds (§4.4).
            """,
            "cases": cases,
        ]
    }

    /// Bob's request for 30.00 (nonce 0xB1) with `hints`.
    private func requestWith(_ hints: [TransportHint]) throws -> PaymentRequest {
        try PaymentRequest(
            payee: bob.publicKey, currency: eur, amount: 3_000, nonce: nonce(0xB1), expiresAt: now + 600, payeeName: "Bob",
            hints: hints)
    }

    /// The body of a keyset (§4.8) of sequence 2 issued at `now`, holding `entries` under a key
    /// count of `count` (default the number of entries).
    private func keysetBody(count: Int? = nil, _ entries: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw([0x07, 0x01])
        writer.varint(2)
        writer.varint(now)
        writer.u8(UInt8(count ?? entries.count))
        for entry in entries { writer.raw(entry) }
        return writer.bytes
    }

    /// One keyset entry: `key` under key id `id` (default its own), valid from `from` (default a
    /// day before `now`) until `until` (default a day after).
    private func keysetEntry(
        _ key: PublicKeyBytes, id: KeyID? = nil, from: Timestamp? = nil, until: Timestamp? = nil
    ) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(id ?? key.keyID)
        writer.raw(key)
        writer.varint(from ?? now - 86_400)
        writer.varint(until ?? now + 86_400)
        return writer.bytes
    }

    /// `body` followed by its keyset signature by `signer` (default the authority).
    private func signedKeyset(_ body: [UInt8], by signer: SoftwareSigner? = nil) throws -> [UInt8] {
        body + (try (signer ?? authority).sign(SignatureContext.keyset.message(body)))
    }
}
