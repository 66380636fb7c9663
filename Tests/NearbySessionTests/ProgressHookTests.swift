import NearbySession
import NearbySessionTesting
import OfflineNotes
import Synchronization
import Testing

@Suite("Session progress hook")
struct ProgressHookTests {
    /// The payer reports its bytes as they go out, frame by frame, then that all of them are
    /// out while it waits for the reply: a client shows "k of n", then "waiting for the
    /// receipt". A hook fired once per batch of frames would take a payment at MTU 185 from
    /// "nothing" to "answered" with no step between.
    @Test func thePayerReportsEachFrameItWritesBeforeTheReply() async throws {
        let pair = try Pair()
        let network = SimulatedNetwork(.init(mtu: 185))
        let (request, ephemeral) = try pair.request(2_000)
        let payment = try pair.payer.pay(request, method: .tcp)
        let options = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .seconds(120), linger: .milliseconds(100))
        let receiver = try NearbyReceiver(request: request, ephemeral: ephemeral, options: options)
        async let served = receiver.serve(network, answer: pair.answer)
        let seen = Mutex<[SessionProgress]>([])
        let result = try await NearbyPayment.pay(request: request, bundle: payment.bundle, dialer: network, options: options) {
            p in
            seen.withLock { $0.append(p) }
        }
        _ = try await served
        let reports = seen.withLock { $0 }
        let beforeReply = reports.filter { $0.received == 0 }
        // Several frames at MTU 185, each reported, rising to the whole stream.
        let steps = Set(beforeReply.map(\.written))
        #expect(steps.count >= 3)
        #expect(beforeReply.contains { $0.sent > 0 && $0.written == $0.sent })
        #expect(zip(beforeReply, beforeReply.dropFirst()).allSatisfy { $0.written <= $1.written })
        // Each report says something new.
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0 != $1 })
        #expect(reports.last?.received ?? 0 > 0)
        #expect(try Receipt(decoding: result.receipt).amount == 2_000)
    }
}
