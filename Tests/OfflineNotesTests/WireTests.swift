import Crypto
import OfflineNotes
import PropertyBased
import Testing

@Suite struct WireTests {
    /// The encoded length is drawn first, uniformly from 1 to 10 bytes, then a value of exactly
    /// that length (uniform UInt64 values are 9 or 10 bytes long almost always, so short
    /// varints and the boundaries between lengths would never be tried).
    @Test func varintRoundTripsAndIsMinimal() async {
        var seenLengths = Set<Int>()
        await propertyCheck(count: 500, input: Gen.int(in: 1...10), Gen.uint64(), Gen.int(in: 0...3)) { length, random, edge in
            // propertyCheck drops errors its body throws (it runs the body under try?): catch them here.
            #expect(throws: Never.self, "length \(length), edge \(edge)") {
                // Smallest and largest value of `length` bytes: 7 bits per byte, 64 bits in all.
                let low: UInt64 = length == 1 ? 0 : 1 << (7 * (length - 1))
                let high: UInt64 = length == 10 ? .max : (1 << (7 * length)) - 1
                let value: UInt64 =
                    switch edge {
                    case 0: low
                    case 1: high
                    default: low + random % (high - low + 1)
                    }
                var w = ByteWriter()
                w.varint(value)
                var r = ByteReader(w.bytes)
                let decoded = try r.varint()
                #expect(decoded == value)
                #expect(r.isAtEnd)
                #expect(w.bytes.count == length, "\(value) took \(w.bytes.count) bytes, not \(length)")
                seenLengths.insert(w.bytes.count)
            }
        }
        #expect(seenLengths == Set(1...10), "lengths tried: \(seenLengths.sorted())")
    }

    @Test func varintRejectsNonMinimalOverlongAndTruncated() throws {
        var r = ByteReader([0x80, 0x00])
        #expect(VerificationError.code { try r.varint() } == "malformed")
        r = ByteReader([0x81, 0x80, 0x00])
        #expect(VerificationError.code { try r.varint() } == "malformed")
        r = ByteReader(Array(repeating: 0xFF, count: 9) + [0x02])
        #expect(VerificationError.code { try r.varint() } == "malformed")
        r = ByteReader(Array(repeating: 0xFF, count: 9) + [0x01])
        let max = try r.varint()
        #expect(max == UInt64.max)
        r = ByteReader([0x80])
        #expect(VerificationError.code { try r.varint() } == "truncated")
        r = ByteReader([])
        #expect(VerificationError.code { try r.varint() } == "truncated")
    }

    @Test func hexRoundTripsAndRejectsJunk() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...40)) { bytes in
            #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        }
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(NoteID(hex: "00") == nil)
    }

    @Test func amountsParseAndFormatWithoutFloatingPoint() async {
        let eur = Currency("EUR")!
        let jpy = Currency("JPY")!
        #expect(Amount.parse("12.50", currency: eur) == 1250)
        #expect(Amount.parse("12.5", currency: eur) == 1250)
        #expect(Amount.parse("12", currency: eur) == 1200)
        #expect(Amount.parse("0.01", currency: eur) == 1)
        #expect(Amount.parse("12.345", currency: eur) == nil)
        #expect(Amount.parse("-1", currency: eur) == nil)
        #expect(Amount.parse("1.", currency: eur) == nil)
        #expect(Amount.parse(".5", currency: eur) == nil)
        #expect(Amount.parse("1e3", currency: eur) == nil)
        #expect(Amount.parse("92233720368547758.07", currency: eur) == Amount.max)
        #expect(Amount.parse("92233720368547758.08", currency: eur) == nil)
        #expect(Amount.parse("5", currency: jpy) == 5)
        #expect(Amount.parse("5.0", currency: jpy) == nil)
        #expect(Amount.format(1250, currency: eur) == "12.50")
        #expect(Amount.format(7, currency: eur) == "0.07")
        #expect(Amount.format(7, currency: jpy) == "7")
        await propertyCheck(input: Gen.uint64(in: 0...Amount.max)) { v in
            #expect(Amount.parse(Amount.format(v, currency: eur), currency: eur) == v)
        }
    }

    @Test func sumsRefuseOverflowPastInt64Max() {
        #expect(Amount.sum([Amount.max]) == Amount.max)
        #expect(Amount.sum([Amount.max, 1]) == nil)
        #expect(Amount.sum([UInt64.max]) == nil)
        #expect(Amount.sum([UInt64.max, 2]) == nil)
        #expect(Amount.sum([]) == 0)
    }

    @Test func currencyCodesAreThreeCapitalLetters() {
        #expect(Currency("EUR") != nil)
        #expect(Currency("eur") == nil)
        #expect(Currency("EURO") == nil)
        #expect(Currency("E1R") == nil)
    }
}

@Suite struct MessageTests {
    let f: Fixture
    init() throws { f = try Fixture() }

    @Test func everyMessageRoundTripsByteForByte() throws {
        let chain = try f.chain(hops: 3, payee: f.bob)
        let note = chain.note
        #expect(try IssuedNote(decoding: note.encoded) == note)
        let transfer = chain.transfers[1]
        #expect(try Transfer(decoding: transfer.encoded) == transfer)
        #expect(try Chain(decoding: chain.encoded) == chain)
        #expect(try Chain(decoding: chain.encoded).encoded == chain.encoded)
        let request = try PaymentRequest(
            payee: f.bob.publicKey, currency: f.eur, amount: 1250, nonce: f.nonce(), expiresAt: f.now + 60,
            payeeName: "Bob’s stall ☕", hints: [.tcp("127.0.0.1:7000"), TransportHint(kind: .qr, value: [])],
            sessionKey: PublicKeyBytes(P256KeyAgreementHelper.newPublicKey()))
        #expect(try PaymentRequest(decoding: request.encoded) == request)
        let bundle = try PaymentBundle(chains: [chain])
        #expect(try PaymentBundle(decoding: bundle.encoded) == bundle)
        let receipt = try Receipt.sign(
            paymentID: bundle.paymentID!, nonce: f.nonce(), currency: f.eur, amount: 9998, receivedAt: f.now,
            transcriptHash: ProtocolHash.sha256([1, 2, 3]), payee: f.bob)
        #expect(try Receipt(decoding: receipt.encoded) == receipt)
        #expect(try Keyset(decoding: f.issuer.keyset.encoded, authority: f.issuer.authority.publicKey) == f.issuer.keyset)
        #expect(try Limits(decoding: f.issuer.limits.encoded, authority: f.issuer.authority.publicKey) == f.issuer.limits)
    }

    @Test func trailingBytesAndWrongTypesAreRejected() throws {
        let note = try f.note(100, to: f.alice).note
        #expect(VerificationError.code { try IssuedNote(decoding: note.encoded + [0]) } == "malformed")
        #expect(VerificationError.code { try Transfer(decoding: note.encoded) } == "unexpected_message_type")
        var wrongVersion = note.encoded
        wrongVersion[1] = 2
        #expect(VerificationError.code { try IssuedNote(decoding: wrongVersion) } == "unsupported_version")
        for length in 0..<note.encoded.count {
            #expect(VerificationError.code { try IssuedNote(decoding: Array(note.encoded.prefix(length))) } == "truncated")
        }
    }

    @Test func keysetAndLimitsNeedTheAuthoritySignature() throws {
        let other = SoftwareSigner()
        #expect(
            VerificationError.code { try Keyset(decoding: f.issuer.keyset.encoded, authority: other.publicKey) }
                == "bad_authority_signature")
        #expect(
            VerificationError.code { try Limits(decoding: f.issuer.limits.encoded, authority: other.publicKey) }
                == "bad_authority_signature")
        var tampered = f.issuer.limits.encoded
        tampered[6] ^= 1  // inside max_offline_holding
        #expect(throws: VerificationError.badAuthoritySignature) {
            try Limits(decoding: tampered, authority: f.issuer.authority.publicKey)
        }
        var keyset = f.issuer.keyset.encoded
        keyset[keyset.count / 2] ^= 1
        #expect(throws: VerificationError.badAuthoritySignature) {
            try Keyset(decoding: keyset, authority: f.issuer.authority.publicKey)
        }
    }

    @Test func oneHopPaymentWithChangeFitsTheSizeBudget() throws {
        let (payment, change) = try f.pay(try f.note(10_000, to: f.alice), from: f.alice, to: f.bob.publicKey, 3_000)
        #expect(change != nil)
        let size = try PaymentBundle(chains: [payment]).encoded.count
        #expect(size <= 350, "1-hop bundle with change is \(size) bytes")
    }
}

enum P256KeyAgreementHelper {
    static func newPublicKey() -> P256.Signing.PublicKey { P256.Signing.PrivateKey().publicKey }
}
