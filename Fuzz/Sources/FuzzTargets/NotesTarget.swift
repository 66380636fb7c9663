import OfflineNotes

/// Every top-level offline-note message (docs/protocol.md §4): issued note, transfer, chain
/// (standalone 0x03), payment request, payment bundle, receipt, keyset, limits. Each input goes
/// to every decoder (all but one refuse it at the type byte, so this costs nothing); whatever
/// decodes must re-encode to the input bytes and decode again to an equal value.
enum NotesTarget {
    static let name = "notes"

    static let target = FuzzTargets.Target(
        name: name,
        covers: "OfflineNotes: IssuedNote, Transfer, Chain, PaymentRequest, PaymentBundle, Receipt, Keyset, Limits",
        run: run,
        seeds: { Vectors.allMessages })

    /// The authority key wallets pin (docs/vectors/keys.json), for the signature-checked decoders.
    static let authority = PublicKeyBytes(uncheckedBytes: Vectors.hex(Vectors.keys, "keys", "authority", "public"))

    static func run(_ bytes: [UInt8]) {
        roundTrip(IssuedNote.self, bytes)
        roundTrip(Transfer.self, bytes)
        roundTrip(Chain.self, bytes)
        roundTrip(PaymentRequest.self, bytes)
        roundTrip(PaymentBundle.self, bytes)
        roundTrip(Receipt.self, bytes)

        if let keyset = try? Keyset(unverifiedDecoding: bytes) {
            guard keyset.encoded == bytes else { fail(name, "Keyset re-encodes differently") }
            guard keyset.keys.count == Set(keyset.keys.map(\.keyID)).count else { fail(name, "Keyset with a key twice") }
            // The signature-checked path must agree with the unchecked one on what it decodes.
            if let checked = try? Keyset(decoding: bytes, authority: authority), checked != keyset {
                fail(name, "Keyset decodes differently with the authority check")
            }
        }
        if let limits = try? Limits(unverifiedDecoding: bytes) {
            guard limits.encoded == bytes else { fail(name, "Limits re-encodes differently") }
            guard limits.maxHops <= Limits.maxHopsCeiling else { fail(name, "Limits above the hop ceiling") }
            if let checked = try? Limits(decoding: bytes, authority: authority), checked != limits {
                fail(name, "Limits decodes differently with the authority check")
            }
        }
    }

    static func roundTrip<M: WireMessage>(_ type: M.Type, _ bytes: [UInt8]) {
        let message: M
        do { message = try M(decoding: bytes) } catch { return }
        let encoded = message.encoded
        guard encoded == bytes else {
            fail(
                name,
                "\(M.self) decodes but re-encodes to other bytes (\(bytes.count) in, \(encoded.count) out): a non-canonical encoding was accepted"
            )
        }
        guard let again = try? M(decoding: encoded), again == message else {
            fail(name, "\(M.self) does not decode its own encoding to an equal value")
        }
    }
}
