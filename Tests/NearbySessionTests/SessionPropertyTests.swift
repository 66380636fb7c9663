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
    /// Random bytes either decode to a frame that encodes back to exactly those bytes, or are
    /// refused. Half the inputs are real frames with one byte changed, so that many decode and
    /// the canonical-form check is exercised, not only the refusals; the test counts them.
    @Test func framesDecodeCanonicallyOrNotAtAll() async {
        var decoded = 0
        var refused = 0
        let real: [[UInt8]] = [
            LinkFrame.data(offset: 0, fin: false, bytes: [1, 2, 3]).encoded,
            LinkFrame.data(offset: 300, fin: true, bytes: [9]).encoded,
            LinkFrame.ack(received: 200).encoded, LinkFrame.resume(sessionID: Array(0..<8), received: 5).encoded,
            LinkFrame.abort(2).encoded,
        ]
        await propertyCheck(count: 1_000, input: Gen.uint8().array(of: 0...24), Gen.int(in: 0...Int.max), Gen.uint8()) {
            random, pick, byte in
            var bytes = random
            if pick % 2 == 0 {
                bytes = real[pick / 2 % real.count]
                bytes[pick / 16 % bytes.count] = byte
            }
            if let frame = try? LinkFrame(decoding: bytes) {
                decoded += 1
                #expect(frame.encoded == bytes, "two encodings of one frame")
            } else {
                refused += 1
            }
        }
        #expect(decoded >= 200, "only \(decoded) of 1000 inputs decoded: the canonical check was hardly tried")
        #expect(refused >= 100, "only \(refused) of 1000 inputs were refused")
    }

    @Test func aPaymentArrivesWholeAndOnceOverAnyLossyLink() async throws {
        await propertyCheck(
            count: 60, input: Gen.int(in: 0...Int.max), Gen.int(in: 20...600), Gen.int(in: 0...35), Gen.int(in: 1...3_000)
        ) { seed, mtu, lossPercent, size in
            // propertyCheck drops errors its body throws (it runs the body under try?): catch them here.
            #expect(throws: Never.self, "seed \(seed), MTU \(mtu), loss \(lossPercent) %, \(size) bytes") {
                try runSession(seed: UInt64(seed), mtu: mtu, loss: Double(lossPercent) / 100, bundleSize: size)
            }
        }
    }

    func runSession(seed: UInt64, mtu: Int, loss: Double, bundleSize: Int) throws {
        var rng = SplitMix64(seed: seed)
        let payeeKey = SoftwareSigner()
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let request = try PaymentRequest(
            payee: payeeKey.publicKey, currency: Currency("EUR")!, amount: 100,
            nonce: Nonce(uncheckedBytes: Array(repeating: 5, count: 16)),
            expiresAt: 2_000_000_000,
            sessionKey: PublicKeyBytes(uncheckedBytes: Array(ephemeral.publicKey.compressedRepresentation)))
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
