import Crypto
import DevIssuer
import Foundation
import NearbySession
import NearbySessionTesting
import NearbyTCP
import OfflineNotes
import Synchronization
import Testing
import WalletCore
import WalletTestSupport

/// The shared payer and payee (WalletTestSupport's `WalletPair`: one dev issuer, the payer
/// holding one 100.00 note), with what these session tests add: requests with a session key,
/// the payee's answer, and a count of the payments that reached it.
final class Pair: @unchecked Sendable {
    let wallets: WalletPair
    var issuer: DevIssuer { wallets.issuer }
    var payer: Wallet { wallets.payer }
    var payee: Wallet { wallets.payee }
    let receives = Mutex(0)

    init(funds: UInt64 = 10_000) throws { wallets = try WalletPair(funds: funds) }

    /// A nearby request from the payee and the ephemeral key that answers it.
    func request(_ amount: UInt64) throws -> (PaymentRequest, P256.KeyAgreement.PrivateKey) {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let key = PublicKeyBytes(uncheckedBytes: Array(ephemeral.publicKey.compressedRepresentation))
        let request = try payee.createRequest(amount: amount, payeeName: "stall", hints: [.tcp("127.0.0.1:1")], sessionKey: key)
        return (request, ephemeral)
    }

    /// The payee wallet's answer to a payment that came through a session.
    var answer: @Sendable ([UInt8], Digest32) async -> PaymentAnswer {
        { [self] bundle, transcript in
            receives.withLock { $0 += 1 }
            do {
                let nonce = try #require(try PaymentBundle(decoding: bundle).chains.first?.transfers.last).nonce
                let received = try payee.receive(bundle, for: nonce, method: .tcp, transcriptHash: transcript)
                return .receipt(received.receipt.encoded)
            } catch let error as WalletError {
                return .refuse(code: error.code, message: error.description)
            } catch {
                return .refuse(code: "malformed", message: "\(error)")
            }
        }
    }

    /// Short timers, so a lost frame costs milliseconds, and liveness bounds only: a loaded
    /// machine starves the 30 ms retransmit timer, and a payment may then need more links and
    /// more time than a phone ever would (the tests check outcomes, never counts of either).
    static let options = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .seconds(120), maxReconnects: 64)

    /// Runs one payment over `network`; returns the payer's result after confirming the receipt.
    func pay(
        _ amount: UInt64, over network: SimulatedNetwork, options: SessionOptions = Pair.options
    ) async throws -> NearbyPayment.Result {
        let (request, ephemeral) = try request(amount)
        let payment = try payer.pay(request, method: .tcp)
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(network, answer: answer)
        let result = try await NearbyPayment.pay(request: request, bundle: payment.bundle, dialer: network, options: options)
        _ = try await served
        try payer.confirm(receipt: result.receipt)
        return result
    }
}

/// Waits (by sleeping in short steps, for up to a minute: a liveness bound) until `condition`
/// holds; returns whether it did.
func waitFor(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// A payee's listener that records every frame the payee sends, in order, over all links.
final class RecordingListener: LinkListener {
    private let inner: any LinkListener
    private let log = Mutex<[[UInt8]]>([])

    init(_ inner: any LinkListener) { self.inner = inner }

    var sent: [[UInt8]] { log.withLock { $0 } }

    func connections() -> AsyncStream<any LinkConnection> {
        let links = inner.connections()
        return AsyncStream { continuation in
            let task = Task {
                for await link in links { continuation.yield(RecordingLink(link, log: self.record)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func close() { inner.close() }

    private func record(_ frame: [UInt8]) { log.withLock { $0.append(frame) } }

    private struct RecordingLink: LinkConnection {
        let inner: any LinkConnection
        let record: @Sendable ([UInt8]) -> Void

        init(_ inner: any LinkConnection, log record: @escaping @Sendable ([UInt8]) -> Void) {
            self.inner = inner
            self.record = record
        }

        var mtu: Int { inner.mtu }
        func send(_ frame: [UInt8]) async throws {
            try await inner.send(frame)
            record(frame)
        }
        func inbound() -> AsyncThrowingStream<[UInt8], any Error> { inner.inbound() }
        func close() { inner.close() }
    }
}

/// The bundles a payee's wallet was asked to answer, in order.
final class BundleLog: Sendable {
    private let log = Mutex<[[UInt8]]>([])
    func append(_ bundle: [UInt8]) { log.withLock { $0.append(bundle) } }
    var bundles: [[UInt8]] { log.withLock { $0 } }
}

/// A payee that restarted: the first link reaches the old process (`before`), every later
/// link the new one (`after`), which never saw the first session.
final class RestartedPayee: LinkDialer {
    let before: SimulatedNetwork
    let after: SimulatedNetwork
    private let dialed = Mutex(0)

    init(before: SimulatedNetwork, after: SimulatedNetwork) {
        self.before = before
        self.after = after
    }

    func connect() async throws -> any LinkConnection {
        let n = dialed.withLock { n in
            defer { n += 1 }
            return n
        }
        return try await (n == 0 ? before : after).connect()
    }
}

/// A payee still on the previous link: the first link and every one after the `busy` next
/// reach `network`; those in between are answered ABORT busy at once (§12: the payee has not
/// yet noticed the old link drop, or its wallet is still answering).
final class BusyPayee: LinkDialer {
    let network: SimulatedNetwork
    let busy: Int
    private let dialed = Mutex(0)

    init(network: SimulatedNetwork, busy: Int) {
        self.network = network
        self.busy = busy
    }

    func connect() async throws -> any LinkConnection {
        let n = dialed.withLock { n in
            defer { n += 1 }
            return n
        }
        return (1...busy).contains(n) ? BusyLink() : try await network.connect()
    }
}

/// A link on which the payee answers "busy" and hangs up.
final class BusyLink: LinkConnection {
    let mtu = 185
    func send(_ frame: [UInt8]) async throws {}
    func inbound() -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(LinkFrame.abort(AbortCode.busy.rawValue).encoded)
            continuation.finish()
        }
    }
    func close() {}
}

@Suite("Link frames")
struct FrameTests {
    @Test func roundTrips() throws {
        let frames: [LinkFrame] = [
            .data(offset: 0, fin: false, bytes: [1]), .data(offset: 183, fin: true, bytes: Array(repeating: 7, count: 100)),
            .ack(received: 0), .ack(received: 391), .resume(sessionID: Array(0..<8), received: 12), .abort(1),
        ]
        for frame in frames { #expect(try LinkFrame(decoding: frame.encoded) == frame) }
        #expect(LinkFrame.data(offset: 0, fin: true, bytes: [9]).encoded == [4, 9])
        #expect(LinkFrame.ack(received: 391).encoded == [0x9D, 0x0C])
    }

    @Test func refusesMalformedFrames() {
        let bad: [[UInt8]] = [
            [], [0x00],  // empty data
            [0x80, 0x00, 1],  // varint not in shortest form
            [0x01, 0x00],  // ack with trailing bytes
            [0x02, 1, 2, 3],  // resume with a short id
            [0xFF, 0xFF, 0xFF, 0x7F, 1],  // data beyond the stream limit
        ]
        for frame in bad {
            #expect(throws: NearbyError.self) { try LinkFrame(decoding: frame) }
        }
    }
}

@Suite("Nearby session")
struct SessionTests {
    @Test(arguments: [20, 185, 512])
    func paysOverACleanLink(mtu: Int) async throws {
        let pair = try Pair()
        let network = SimulatedNetwork(.init(mtu: mtu))
        let result = try await pair.pay(3_000, over: network)
        #expect(result.reconnects == 0)
        #expect(try pair.payer.balance().spendable == 7_000)
        #expect(try pair.payee.balance().unsettled == 3_000)
        let receipt = try Receipt(decoding: result.receipt)
        #expect(receipt.transcriptHash == result.transcriptHash)
        #expect(pair.receives.withLock { $0 } == 1)
    }

    /// Seeds chosen so that the radio drops the very first frame of the session (and more
    /// later) at every MTU: each case exercises loss, not only the MTU-20 one.
    @Test(arguments: [(20, UInt64(3)), (185, UInt64(10)), (512, UInt64(18))])
    func paysOverALossyReorderingLink(mtu: Int, seed: UInt64) async throws {
        let pair = try Pair()
        let network = SimulatedNetwork(.init(mtu: mtu, loss: 0.15, reorder: 0.2), seed: seed)
        _ = try await pair.pay(1_250, over: network)
        #expect(network.counters.dropped > 0, "seed \(seed) dropped nothing at MTU \(mtu)")
        #expect(try pair.payer.balance().spendable == 8_750)
        #expect(try pair.payee.balance().unsettled == 1_250)
        #expect(try pair.payee.history().count == 1)
        #expect(pair.receives.withLock { $0 } == 1)
    }

    @Test(arguments: [1, 3, 7, 12])
    func resumesAfterTheLinkIsCut(after frames: Int) async throws {
        let pair = try Pair()
        let network = SimulatedNetwork(.init(mtu: 20, cutAfterFrames: [0: frames, 1: frames + 5]))
        let result = try await pair.pay(3_000, over: network)
        #expect(result.reconnects >= 1)
        #expect(network.counters.links == result.reconnects + 1)
        #expect(try pair.payee.balance().unsettled == 3_000)
        // However often the link dropped, the payee's wallet credited one payment.
        #expect(try pair.payee.history().count == 1)
    }

    /// "Busy" answers are not lost links: a payee still busy with the old link (a loaded
    /// phone's wallet can take longer than every backoff step together) answers each resume
    /// "busy", and the payer keeps resuming within its deadline instead of giving up after
    /// `maxReconnects` links. The payment completes on the next real link, credited once.
    @Test func busyAnswersDoNotUseUpTheReconnects() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(3_000)
        let payment = try pair.payer.pay(request, method: .tcp)
        let options = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .seconds(120), maxReconnects: 2)
        let network = SimulatedNetwork(.init(mtu: 20, cutAfterFrames: [0: 3]))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(network, answer: pair.answer)
        let result = try await NearbyPayment.pay(
            request: request, bundle: payment.bundle, dialer: BusyPayee(network: network, busy: 5), options: options)
        _ = try await served
        #expect(result.reconnects == 6 && result.restarts == 0, "one cut, five busy answers, one resume")
        #expect(network.counters.links == 2)
        try pair.payer.confirm(receipt: result.receipt)
        #expect(try pair.payee.balance().unsettled == 3_000)
        #expect(try pair.payee.history().count == 1)
    }

    /// The payee's process restarts mid-payment and forgets the session: the payer's resume is
    /// answered ABORT unknown_session, and the payer starts one new session carrying the very
    /// same signed bundle (SessionDriver's restart branch), credited once.
    @Test func restartsWithTheSameBytesWhenThePayeeForgotTheSession() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(3_000)
        let payment = try pair.payer.pay(request, method: .tcp)
        // Timeouts only bound a hang (liveness); the test waits on the payment itself.
        let options = Pair.options
        // The first payee process: its link dies after 6 frames, long before the ~20 frames
        // of the bundle at MTU 20 are through.
        let before = SimulatedNetwork(.init(mtu: 20, cutAfterFrames: [0: 6]))
        // The restarted process: a new receiver with the same request, knowing no session.
        let after = SimulatedNetwork(.init(mtu: 185))
        let seen = BundleLog()
        let answer = pair.answer
        let logged: @Sendable ([UInt8], Digest32) async -> PaymentAnswer = { bundle, transcript in
            seen.append(bundle)
            return await answer(bundle, transcript)
        }
        let first = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let gone = try? first.serve(before, answer: logged)
        let second = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = second.serve(after, answer: logged)

        let result = try await NearbyPayment.pay(
            request: request, bundle: payment.bundle, dialer: RestartedPayee(before: before, after: after), options: options)
        before.close()
        _ = await gone
        let got = try await served
        #expect(result.restarts == 1, "the payer did not start afresh once")
        // The first link reached the old process; every later one the new process: one carried
        // the refused resume, the last the new session (a link lost while the old session was
        // being refused — the payee closes it as it answers — adds one more; the restart stays one).
        #expect(result.reconnects >= 2)
        #expect(before.counters.links == 1 && after.counters.links == result.reconnects)
        #expect(before.counters.dialerFrames > 0, "the first session sent nothing before the payee forgot it")
        // The wallet signed once: asked again it hands back the same bytes, and those bytes,
        // unchanged, are what the restarted payee received, once.
        #expect(try pair.payer.pay(request, method: .tcp).bundle == payment.bundle)
        #expect(seen.bundles == [payment.bundle])
        #expect(got.receipt == result.receipt)
        try pair.payer.confirm(receipt: result.receipt)
        #expect(try pair.payer.balance().spendable == 7_000)
        #expect(try pair.payer.pendingPayments().isEmpty)
        #expect(try pair.payee.balance().unsettled == 3_000)
        #expect(try pair.payee.history().count == 1)
    }

    /// The payee answered but the payer died before the reply arrived: a new session with the
    /// same signed bundle gets a receipt bound to the new transcript, for the same payment.
    @Test func aLostReplyIsSignedAgainForTheNextSession() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(700)
        let payment = try pair.payer.pay(request, method: .tcp)
        var receipts: [Receipt] = []
        for _ in 0..<2 {
            var payer = try NearbyPayer(request: request, bundle: payment.bundle)
            var payee = try NearbyPayee(request: request, ephemeral: ephemeral)
            var event: SessionEvent?
            for frame in payer.frames(mtu: 185, now: .zero, rto: .seconds(1)) {
                event = try payee.handle(frame, now: .zero) ?? event
            }
            guard case .payment(let bundle, let transcript) = event,
                case .receipt(let bytes) = await pair.answer(bundle, transcript)
            else {
                Issue.record("no receipt")
                return
            }
            try payee.reply(receipt: bytes)
            var got: SessionEvent?
            for frame in payee.frames(mtu: 185, now: .zero, rto: .seconds(1)) { got = try payer.handle(frame, now: .zero) ?? got }
            #expect(got == .receipt(bytes))
            receipts.append(try Receipt(decoding: bytes))
        }
        #expect(receipts[0].paymentID == receipts[1].paymentID && receipts[0].amount == receipts[1].amount)
        #expect(receipts[0].transcriptHash != receipts[1].transcriptHash)
        try pair.payer.confirm(receipt: receipts[1].encoded)
        #expect(try pair.payee.balance().unsettled == 700)
        #expect(try pair.payee.history().count == 1)
    }

    @Test func aPayeeUnknownToTheResumeMakesThePayerStartAfresh() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(500)
        let payment = try pair.payer.pay(request, method: .tcp)
        var payer = try NearbyPayer(request: request, bundle: payment.bundle)
        // A payee that never saw the session answers a resume with ABORT unknown_session.
        let network = SimulatedNetwork(.init(mtu: 185))
        let options = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .seconds(120))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(network, answer: pair.answer)
        let link = try await network.connect()
        let frames = link.inbound()
        try await link.send(try #require(payer.resumeFrame()).encoded)
        var iterator = frames.makeAsyncIterator()
        let reply = try await iterator.next()
        #expect(try LinkFrame(decoding: try #require(reply)) == .abort(AbortCode.unknownSession.rawValue))
        link.close()
        _ = payer.frames(mtu: 185, now: .zero, rto: .seconds(1))
        let result = try await NearbyPayment.pay(request: request, bundle: payment.bundle, dialer: network, options: options)
        _ = try await served
        #expect(try Receipt(decoding: result.receipt).amount == 500)
    }

    /// A slow link takes a burst frame by frame; the time that takes is not the payee's
    /// silence, so the timer counts from the end of the write.
    @Test func theRetransmitTimerCountsFromTheEndOfTheWrite() throws {
        let pair = try Pair()
        let (request, _) = try pair.request(800)
        let payment = try pair.payer.pay(request, method: .tcp)
        var payer = try NearbyPayer(request: request, bundle: payment.bundle)
        let rto = Duration.milliseconds(50)
        let burst = payer.frames(mtu: 20, now: .zero, rto: rto)
        #expect(burst.count > 10)
        // The link took the last of the burst 200 ms later.
        payer.written(now: .milliseconds(200))
        #expect(payer.frames(mtu: 20, now: .milliseconds(240), rto: rto).isEmpty, "40 ms after the write is not a timeout")
        #expect(payer.progress.retransmissions == 0)
        let again = payer.frames(mtu: 20, now: .milliseconds(250), rto: rto)
        #expect(again == burst, "a timeout after the write sends everything unacknowledged again")
        #expect(payer.progress.retransmissions == 1)
        payer.written(now: .milliseconds(260))
        #expect(payer.frames(mtu: 20, now: .milliseconds(340), rto: rto).isEmpty, "backed off: 2 × 50 ms from 260 ms")
        // A write that carried no data (an ACK alone) does not move the timer.
        payer.written(now: .milliseconds(350))
        #expect(payer.frames(mtu: 20, now: .milliseconds(360), rto: rto) == burst)
        #expect(payer.progress.retransmissions == 2)
    }

    /// A wallet that answers at once: its reply is the ACK (its first bytes acknowledge the
    /// payer's whole stream), so no ACK frame of its own goes ahead of it.
    @Test func aQuickAnswerCarriesTheACKInItsReply() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(600)
        let payment = try pair.payer.pay(request, method: .tcp)
        let network = SimulatedNetwork(.init(mtu: 185))
        let recorder = RecordingListener(network)
        // Half this timeout is how long the payee waits for its wallet before it sends the ACK
        // ahead (a liveness bound on the wallet's answer, not a speed check); nothing is lost
        // on this link, so nothing is sent twice.
        let options = SessionOptions(retransmitAfter: .seconds(60), timeout: .seconds(120))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(recorder, answer: pair.answer)
        let result = try await NearbyPayment.pay(request: request, bundle: payment.bundle, dialer: network, options: options)
        _ = try await served
        #expect(try Receipt(decoding: result.receipt).amount == 600)
        let sent = try recorder.sent.map { try LinkFrame(decoding: $0) }
        let firstReply = try #require(sent.firstIndex { if case .data = $0 { true } else { false } })
        // At most the hello record's ACK (when it completed in a read of its own) goes first;
        // never one of the whole stream, which is longer than the bundle it seals.
        let acked: [Int] = sent[..<firstReply].compactMap { if case .ack(let received) = $0 { received } else { nil } }
        #expect(acked.count <= 1, "the payee's frames before its reply: \(sent[..<firstReply])")
        #expect(
            acked.allSatisfy { $0 < payment.bundle.count }, "an ACK of the whole payment went ahead of a ready reply: \(acked)")
    }

    /// The payee's wallet may take a while to check a payment: the payer hears the ACK of its
    /// whole stream before the answer, so it does not send the payment again meanwhile.
    @Test func thePayeeAcknowledgesThePaymentBeforeItsWalletAnswers() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(700)
        let payment = try pair.payer.pay(request, method: .tcp)
        let network = SimulatedNetwork(.init(mtu: 185))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: Pair.options)
        let released = Mutex(false)
        let checking = Mutex(false)
        let answer = pair.answer
        async let served = receiver.serve(network) { bundle, transcript in
            checking.withLock { $0 = true }
            while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
            return await answer(bundle, transcript)
        }
        let seen = Mutex<SessionProgress?>(nil)
        async let paid = NearbyPayment.pay(
            request: request, bundle: payment.bundle, dialer: network, options: Pair.options,
            progress: { progress in seen.withLock { $0 = progress } })
        let acknowledged = await waitFor {
            guard checking.withLock({ $0 }), let progress = seen.withLock({ $0 }) else { return false }
            return progress.sent > 0 && progress.acknowledged == progress.sent
        }
        #expect(acknowledged, "the payer heard no ACK while the payee's wallet was checking its payment")
        #expect(seen.withLock { $0?.received } == 0, "no reply yet: the ACK came on its own")
        released.withLock { $0 = true }
        let result = try await paid
        _ = try await served
        #expect(try Receipt(decoding: result.receipt).amount == 700)
        #expect(pair.receives.withLock { $0 } == 1)
    }

    @Test func theRequestComesInFramesAtAnyMTU() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(900)
        let network = SimulatedNetwork(.init(mtu: 20))
        // No deadline on how fast the request arrives: the test waits for the fetch to return.
        // The timeouts only stop a hung session (liveness), and the test ends the receiver
        // itself by closing the network.
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: SessionOptions(timeout: .seconds(300)))
        async let served = try? receiver.serve(network, answer: pair.answer)
        #expect(try await NearbyPayment.fetchRequest(from: network, timeout: .seconds(300)) == request)
        #expect(network.counters.listenerFrames > 1)
        network.close()
        _ = await served
    }

    @Test func aTamperedRecordStopsTheSession() throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(500)
        let payment = try pair.payer.pay(request, method: .tcp)
        var payer = try NearbyPayer(request: request, bundle: payment.bundle)
        var payee = try NearbyPayee(request: request, ephemeral: ephemeral)
        let frames = payer.frames(mtu: 512, now: .zero, rto: .seconds(1))
        #expect(frames.count == 2)
        _ = try payee.handle(frames[0], now: .zero)
        guard case .data(let offset, let fin, var bytes) = frames[1] else {
            Issue.record("expected data")
            return
        }
        bytes[bytes.count / 2] ^= 0x01
        #expect(throws: NearbyError.decryptionFailed) {
            try payee.handle(.data(offset: offset, fin: fin, bytes: bytes), now: .zero)
        }
    }

    @Test func aReceiptForAnotherTranscriptIsRefused() throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(500)
        let payment = try pair.payer.pay(request, method: .tcp)
        var payer = try NearbyPayer(request: request, bundle: payment.bundle)
        var payee = try NearbyPayee(request: request, ephemeral: ephemeral)
        var event: SessionEvent?
        for frame in payer.frames(mtu: 512, now: .zero, rto: .seconds(1)) { event = try payee.handle(frame, now: .zero) ?? event }
        guard case .payment(let bundle, _) = event else {
            Issue.record("no payment")
            return
        }
        // The payee's wallet signs a receipt over some other transcript (a relay, a bug).
        let other = Digest32(uncheckedBytes: Array(repeating: 0xAB, count: 32))
        let received = try pair.payee.receive(bundle, for: request.nonce, method: .tcp, transcriptHash: other)
        try payee.reply(receipt: received.receipt.encoded)
        #expect(throws: NearbyError.receiptNotBound) {
            for frame in payee.frames(mtu: 512, now: .zero, rto: .seconds(1)) { _ = try payer.handle(frame, now: .zero) }
        }
    }

    @Test func aReplayedSessionCreditsNothingTwice() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(800)
        let payment = try pair.payer.pay(request, method: .tcp)
        var payer = try NearbyPayer(request: request, bundle: payment.bundle)
        let recorded = payer.frames(mtu: 185, now: .zero, rto: .seconds(1))
        var receipts: [[UInt8]] = []
        for _ in 0..<2 {
            var payee = try NearbyPayee(request: request, ephemeral: ephemeral)
            var event: SessionEvent?
            for frame in recorded { event = try payee.handle(frame, now: .zero) ?? event }
            guard case .payment(let bundle, let transcript) = event else {
                Issue.record("no payment")
                return
            }
            if case .receipt(let r) = await pair.answer(bundle, transcript) { receipts.append(r) }
        }
        #expect(receipts.count == 2 && receipts[0] == receipts[1])
        #expect(try pair.payee.balance().unsettled == 800)
    }

    @Test func aRefusalReachesThePayer() async throws {
        let pair = try Pair()
        let network = SimulatedNetwork(.init(mtu: 185))
        let (request, ephemeral) = try pair.request(500)
        let payment = try pair.payer.pay(request, method: .tcp)
        let options = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .seconds(120), linger: .milliseconds(100))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served: NearbyReceiver.Result? = try? receiver.serve(
            network, answer: { _, _ in .refuse(code: "request_expired", message: "too late") })
        await #expect(throws: NearbyError.refused(code: "request_expired", message: "too late")) {
            _ = try await NearbyPayment.pay(request: request, bundle: payment.bundle, dialer: network, options: options)
        }
        network.close()
        #expect(await served == nil)
    }

    /// The size budget of the issue: everything on the link, both ways, per application byte.
    /// Driven step by step (no timers), so a slow test machine cannot add retransmissions.
    @Test func linkOverheadOfAOneHopPaymentAtMTU185() async throws {
        let pair = try Pair()
        let (request, ephemeral) = try pair.request(3_000)
        let payment = try pair.payer.pay(request, method: .tcp)
        var payer = try NearbyPayer(request: request, bundle: payment.bundle)
        var payee = try NearbyPayee(request: request, ephemeral: ephemeral)
        var linkBytes = 0
        var event: SessionEvent?
        for frame in payer.frames(mtu: 185, now: .zero, rto: .seconds(1)) {
            #expect(frame.encoded.count <= 185)
            linkBytes += frame.encoded.count
            event = try payee.handle(frame, now: .zero) ?? event
        }
        guard case .payment(let bundle, let transcript) = event,
            case .receipt(let receipt) = await pair.answer(bundle, transcript)
        else {
            Issue.record("no receipt")
            return
        }
        try payee.reply(receipt: receipt)
        var answer: SessionEvent?
        for frame in payee.frames(mtu: 185, now: .zero, rto: .seconds(1)) {
            #expect(frame.encoded.count <= 185)
            linkBytes += frame.encoded.count
            answer = try payer.handle(frame, now: .zero) ?? answer
        }
        #expect(answer == .receipt(receipt))
        for frame in payer.frames(mtu: 185, now: .zero, rto: .seconds(1)) {
            linkBytes += frame.encoded.count
            _ = try payee.handle(frame, now: .zero)
        }
        #expect(payer.isFinished && payee.isFinished)
        #expect(payment.bundle.count <= 342)
        let application = payment.bundle.count + receipt.count
        let ratio = Double(linkBytes) / Double(application)
        #expect(ratio <= 1.15, "link bytes \(linkBytes) for \(application) application bytes")
    }
}

@Suite("Nearby session over TCP")
struct TCPSessionTests {
    @Test func paysOverLoopback() async throws {
        let pair = try Pair()
        let listener = try await TCPLink.listen(host: "127.0.0.1", port: 0)
        let port = try #require(listener.port)
        let (request, ephemeral) = try pair.request(1_250)
        let payment = try pair.payer.pay(request, method: .tcp)
        let options = SessionOptions(retransmitAfter: .milliseconds(200), timeout: .seconds(120))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(listener, answer: pair.answer)
        let result = try await NearbyPayment.pay(
            request: request, bundle: payment.bundle, dialer: TCPLink.dialer(host: "127.0.0.1", port: port), options: options)
        let got = try await served
        #expect(got.receipt == result.receipt)
        try pair.payer.confirm(receipt: result.receipt)
        #expect(try pair.payer.balance().spendable == 8_750)
    }

    /// A payer with only the listener's address asks for the request, then pays it.
    @Test func aListeningPayeeHandsOutItsRequest() async throws {
        let pair = try Pair()
        let listener = try await TCPLink.listen(host: "127.0.0.1", port: 0)
        let port = try #require(listener.port)
        let (request, ephemeral) = try pair.request(900)
        let options = SessionOptions(retransmitAfter: .milliseconds(200), timeout: .seconds(120))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(listener, answer: pair.answer)
        let dialer = TCPLink.dialer(host: "127.0.0.1", port: port)
        // The timeout is a liveness bound, not a speed check.
        let fetched = try await NearbyPayment.fetchRequest(from: dialer, timeout: .seconds(120))
        #expect(fetched == request)
        let payment = try pair.payer.pay(fetched, method: .tcp)
        let result = try await NearbyPayment.pay(request: fetched, bundle: payment.bundle, dialer: dialer, options: options)
        _ = try await served
        try pair.payer.confirm(receipt: result.receipt)
        #expect(try pair.payee.balance().unsettled == 900)
    }

    @Test func parsesAddresses() {
        #expect(TCPLink.parse(address: "127.0.0.1:4000")! == ("127.0.0.1", 4000))
        #expect(TCPLink.parse(address: "[::1]:80")! == ("::1", 80))
        #expect(TCPLink.parse(address: "host") == nil)
        #expect(TCPLink.parse(address: ":80") == nil)
        #expect(TCPLink.parse(address: "h:99999") == nil)
    }
}
