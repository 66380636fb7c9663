import Crypto
import NearbySession
import NearbySessionTesting
import OfflineNotes
import PropertyBased
import TestSupport
import Testing

/// The session machines under any frame size, loss, duplication and reordering, on a virtual
/// clock (no real timers, so every failing case replays exactly).
@Suite struct SessionPropertyTests {
    @Test func framesDecodeCanonicallyOrNotAtAll() async {
        await propertyCheck(count: 1_000, input: Gen.uint8().array(of: 0...24)) { bytes in
            if let frame = try? LinkFrame(decoding: bytes) {
                #expect(frame.encoded == bytes, "two encodings of one frame")
            }
        }
    }

    @Test func aPaymentArrivesWholeAndOnceOverAnyLossyLink() async throws {
        try await propertyCheck(
            count: 60, input: Gen.int(in: 0...Int.max), Gen.int(in: 20...600), Gen.int(in: 0...35), Gen.int(in: 1...3_000)
        ) { seed, mtu, lossPercent, size in
            try runSession(seed: UInt64(seed), mtu: mtu, loss: Double(lossPercent) / 100, bundleSize: size)
        }
    }

    func runSession(seed: UInt64, mtu: Int, loss: Double, bundleSize: Int) throws {
        var rng = SplitMix64(seed: seed)
        let payeeKey = SoftwareSigner()
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let request = try PaymentRequest(
            payee: payeeKey.publicKey, currency: Currency("EUR")!, amount: 100, nonce: Nonce(uncheckedBytes: Array(repeating: 5, count: 16)),
            expiresAt: 2_000_000_000, sessionKey: PublicKeyBytes(uncheckedBytes: Array(ephemeral.publicKey.compressedRepresentation)))
        let bundle = (0..<bundleSize).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        var payer = try NearbyPayer(request: request, bundle: bundle)
        var payee = try NearbyPayee(request: request, ephemeral: ephemeral)
        var toPayee: [LinkFrame] = []
        var toPayer: [LinkFrame] = []
        var payments = 0
        var receipt: [UInt8]?
        var now = Duration.zero
        let rto = Duration.milliseconds(100)

        /// Loses, duplicates and reorders frames on their way.
        func transmit(_ frames: [LinkFrame], into queue: inout [LinkFrame]) {
            for frame in frames {
                #expect(frame.encoded.count <= mtu)
                if rng.chance(loss) { continue }
                queue.insert(frame, at: rng.chance(0.2) ? Int(rng.next() % UInt64(queue.count + 1)) : queue.count)
                if rng.chance(0.05) { queue.append(frame) }
            }
        }

        for _ in 0..<5_000 where !(payer.isFinished && payee.isFinished) {
            transmit(payer.frames(mtu: mtu, now: now, rto: rto), into: &toPayee)
            transmit(payee.frames(mtu: mtu, now: now, rto: rto), into: &toPayer)
            for frame in toPayee {
                if case .payment(let got, let transcript) = try payee.handle(frame, now: now) {
                    payments += 1
                    #expect(got == bundle)
                    let signed = try Receipt.sign(
                        paymentID: Digest32(uncheckedBytes: Array(repeating: 1, count: 32)), nonce: request.nonce,
                        currency: request.currency, amount: 100, receivedAt: 1, transcriptHash: transcript, payee: payeeKey)
                    try payee.reply(receipt: signed.encoded)
                }
            }
            toPayee = []
            for frame in toPayer {
                if case .receipt(let bytes) = try payer.handle(frame, now: now) { receipt = bytes }
            }
            toPayer = []
            now += .milliseconds(25)
        }
        // A payee whose final ACK was lost lingers and stops on its own; the payer must be done.
        #expect(payer.isFinished, "seed \(seed), MTU \(mtu), loss \(loss): the payer never finished")
        #expect(payments == 1, "the payment was delivered \(payments) times")
        #expect(receipt != nil)
    }
}
