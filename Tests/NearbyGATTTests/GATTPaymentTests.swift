import NearbyGATTTesting
import NearbySession
import OfflineNotes
import Synchronization
import Testing
import WalletCore
import WalletFlows
import WalletTestSupport

@testable import NearbyGATT

extension WalletPair {
    /// WalletPair's options with a reconnect budget that is a liveness bound here too: with
    /// 30 ms timers the default 8 links span about one second of backoff, less than a loaded
    /// machine may take for the payee to notice a cut link, and a payee still busy with the old
    /// link can close a new one before the payer has written its RESUME (counted as a lost
    /// link, not a "busy" answer). As SessionTests does.
    static var gattPayerOptions: SessionOptions {
        var options = sessionOptions
        options.maxReconnects = 64
        return options
    }

    var payFlow: NearbyPayFlow { NearbyPayFlow(wallet: payer, options: Self.gattPayerOptions) }
    var receiveFlow: NearbyReceiveFlow { NearbyReceiveFlow(wallet: payee, options: Self.sessionOptions) }

    /// A request offering a nearby session on a fresh Bluetooth LE session service.
    func bluetoothRequest(_ amount: UInt64) throws -> (NearbyRequest, GATTUUID) {
        let service = GATTProfile.makeSessionService()
        let nearby = try receiveFlow.createRequest(amount: amount, payeeName: "Bob", hints: [GATTProfile.hint(for: service)])
        return (nearby, service)
    }
}

/// Real payments between two real wallets over the simulated Bluetooth LE radio: the links,
/// the listener and the session are the shipped code; only the radio is simulated.
@Suite("Nearby payments over Bluetooth LE (simulated GATT)")
struct GATTPaymentTests {
    @Test(arguments: [(23, 1), (185, 1), (512, 1), (185, 8)])
    func aPaymentCrossesTheRadio(attMTU: Int, queueCapacity: Int) async throws {
        let pair = try WalletPair()
        let radio = SimulatedGATTRadio(.init(attMTU: attMTU, queueCapacity: queueCapacity, linkCapacity: 2))
        let (nearby, service) = try pair.bluetoothRequest(2_500)
        // The payer finds the payee by the hint the request carries.
        #expect(GATTProfile.sessionService(in: try PaymentRequest(decoding: nearby.request.encoded)) == service)

        async let served = pair.receiveFlow.serve(nearby, on: radio.listener)
        let paid = try await pair.payFlow.pay(nearby.request, dialer: radio.dialer)
        let received = try await served

        #expect(paid.payment.status == .completed)
        #expect(paid.payment.amount == 2_500 && received.payment.amount == 2_500)
        #expect(received.payment.id == paid.payment.id)
        // The receipt is bound to this session's transcript on both sides.
        #expect(received.transcriptHash == paid.transcriptHash)
        #expect(try pair.payer.balance().spendable == 7_500)
        #expect(try pair.payee.balance().unsettled == 2_500)
        #expect(try pair.payee.history().count == 1)
        #expect(try pair.payer.pendingPayments().isEmpty)

        let counters = radio.counters
        // Frames are cut to ATT MTU − 3: the payer's stream fills whole packets.
        #expect(counters.longestPacket == GATTProfile.packetLength(attMTU: attMTU) || attMTU == 512)
        #expect(counters.longestPacket <= attMTU - 3)
        #expect(counters.toPeripheral > 0 && counters.toCentral > 0)
        // A full radio queue is waited out, never dropped: a refusal is always followed by readiness.
        #expect(counters.readySignals <= counters.refusals)
    }

    @Test(arguments: [2, 9, 30])
    func aDisconnectMidPaymentResumesAndPaysOnce(cutAfterPackets: Int) async throws {
        let pair = try WalletPair()
        // At ATT MTU 23 the payer's stream is ~25 packets: 2 and 9 cut it on the way out, 30
        // cuts the payee's reply.
        let radio = SimulatedGATTRadio(.init(attMTU: 23, queueCapacity: 2, cutAfterPackets: [0: cutAfterPackets]))
        let (nearby, _) = try pair.bluetoothRequest(1_250)
        async let served = pair.receiveFlow.serve(nearby, on: radio.listener)
        let paid = try await pair.payFlow.pay(nearby.request, dialer: radio.dialer)
        let received = try await served

        #expect(radio.counters.cuts >= 1)
        #expect(radio.counters.connections >= 2)
        #expect(paid.reconnects >= 1)
        #expect(paid.restarts == 0, "the payee kept the session: RESUME, not a new session")
        #expect(received.payment.id == paid.payment.id)
        #expect(received.transcriptHash == paid.transcriptHash)
        // Counted exactly once on both sides.
        #expect(try pair.payer.balance().spendable == 8_750)
        // The payer's history: its deposit and this one payment.
        #expect(try pair.payer.history().count == 2)
        #expect(try pair.payee.history().count == 1)
        #expect(try pair.payee.balance().unsettled == 1_250)
        // The wallet signed once: asked again for this request it returns the bytes that went out.
        #expect(try pair.payer.pay(nearby.request, method: .tcp).bundle == paid.bundle)
    }

    /// The payee answered, but its reply is slow to reach the payer (a loaded phone, a busy
    /// radio): the linger must not run while the link carrying the reply stands. Closing then
    /// cut the reply off and turned the payer's resume away ("payee not found").
    @Test func aReplyStillOnItsWayIsNotCutOffByTheLinger() async throws {
        let pair = try WalletPair()
        let radio = SimulatedGATTRadio(.init(attMTU: 185, queueCapacity: 1, linkCapacity: 1))
        let (nearby, _) = try pair.bluetoothRequest(700)
        let hasty = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .seconds(120), linger: .zero)
        // The payer hears nothing from the payee until released: the reply waits in the radio.
        radio.stall(.toCentral)
        async let served = NearbyReceiveFlow(wallet: pair.payee, options: hasty).serve(nearby, on: radio.listener)
        async let paying = pair.payFlow.pay(nearby.request, dialer: radio.dialer)
        #expect(await eventually { (try? pair.payee.history().count) == 1 }, "the payee never answered")
        // Plenty of turns for a payee that lingers from its answer to close its listener.
        let closed = await eventually { radio.listener.isClosed }
        #expect(!closed, "the payee stopped serving while its reply was still on the link")
        radio.release(.toCentral)
        let paid = try await paying
        let received = try await served
        #expect(received.payment.id == paid.payment.id)
        #expect(paid.reconnects == 0)
        #expect(try pair.payer.balance().spendable == 9_300)
    }

    @Test func aCutByHandWhileTheReaderStallsResumesOnTheNextLink() async throws {
        let pair = try WalletPair()
        let radio = SimulatedGATTRadio(.init(attMTU: 185, queueCapacity: 1, linkCapacity: 1))
        let (nearby, _) = try pair.bluetoothRequest(4_000)
        // The payee stops reading: the payer's frames pile up in the radio and its link.
        radio.stall(.toPeripheral)
        async let served = pair.receiveFlow.serve(nearby, on: radio.listener)
        async let paying = pair.payFlow.pay(nearby.request, dialer: radio.dialer)
        // Wait until the payer is held back by the full queue, then drop the connection.
        var spins = 0
        while radio.counters.refusals == 0, spins < 1_000_000 {
            await Task.yield()
            spins += 1
        }
        #expect(radio.counters.refusals > 0, "the stalled reader never filled the radio queue")
        #expect(radio.counters.toPeripheral == 0)
        radio.release(.toPeripheral)
        radio.cut()
        let paid = try await paying
        let received = try await served
        #expect(paid.reconnects >= 1)
        #expect(received.payment.id == paid.payment.id)
        #expect(try pair.payer.balance().spendable == 6_000)
        #expect(try pair.payee.history().count == 1)
    }
}
