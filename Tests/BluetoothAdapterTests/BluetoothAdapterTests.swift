import CoreBluetooth
import Foundation
import NearbyGATT
import NearbySession
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

@testable import BluetoothAdapter

/// The app's CoreBluetooth adapter (App/Sources/Adapters/Bluetooth, compiled here as
/// `BluetoothAdapter`) paying between two real wallets over the simulated CoreBluetooth
/// (Sources/Testing/CoreBluetoothSimulator): the adapter's queue, waits, routing and
/// backpressure are the shipped code; only the radio is simulated. Serialized: the simulated
/// air and the adapter's queue are process-wide.
@Suite("CoreBluetooth adapter over a simulated CoreBluetooth", .serialized)
struct BluetoothAdapterTests {
    /// A payee showing a Bluetooth request, served by a fresh advertiser; the payer's browser.
    struct Phones {
        let air: SimulatedAir
        let pair: WalletPair
        let advertiser = BluetoothAdvertiser()
        let browser = BluetoothBrowser()
        let nearby: NearbyRequest
        let service: GATTUUID
        let localName: String

        init(_ conditions: SimulatedAir.Conditions = .init(), amount: UInt64 = 2_500) throws {
            air = SimulatedAir(conditions)
            SimulatedAir.current = air
            pair = try WalletPair()
            service = advertiser.makeSessionService()
            nearby = try NearbyReceiveFlow(wallet: pair.payee, options: WalletPair.sessionOptions)
                .createRequest(amount: amount, payeeName: "Bob", hints: [GATTProfile.hint(for: service)])
            localName = GATTProfile.localName(keyIDHex: pair.payee.publicKey.keyID.hex, displayName: "Bob's iPhone") ?? ""
        }

        var payFlow: NearbyPayFlow { NearbyPayFlow(wallet: pair.payer, options: WalletPair.sessionOptions) }
        var receiveFlow: NearbyReceiveFlow { NearbyReceiveFlow(wallet: pair.payee, options: WalletPair.sessionOptions) }

        func listen() async throws -> GATTListener {
            try await advertiser.listen(service: service, localName: localName)
        }

        /// The payee serves its request; the payer dials the request's Bluetooth hint and pays.
        func payScannedRequest() async throws -> (paid: NearbyPayResult, received: NearbyReceiveResult) {
            let listener = try await listen()
            defer { listener.close() }
            let dialer = try #require(browser.dialer(for: nearby.request))
            async let served = receiveFlow.serve(nearby, on: listener)
            let paid = try await payFlow.pay(nearby.request, dialer: dialer)
            return (paid, try await served)
        }
    }

    @Test(arguments: [(23, 1), (185, 2), (512, 4)])
    func aScannedRequestIsPaidOverBluetooth(attMTU: Int, queue: Int) async throws {
        let phones = try Phones(.init(attMTU: attMTU, writeQueue: queue, notifyQueue: queue))
        let (paid, received) = try await phones.payScannedRequest()

        #expect(paid.payment.status == .completed)
        #expect(received.payment.id == paid.payment.id)
        #expect(received.transcriptHash == paid.transcriptHash)
        #expect(try phones.pair.payer.balance().spendable == 7_500)
        #expect(try phones.pair.payee.history().count == 1)
        let counters = phones.air.snapshot
        // The adapter waited for canSendWriteWithoutResponse: no write was lost to a full queue.
        #expect(counters.droppedWrites == 0)
        // Packets are ATT MTU − 3 at most (what maximumWriteValueLength / maximumUpdateValueLength say).
        #expect(counters.longestPacket <= attMTU - 3)
        #expect(counters.misuses == 0)
    }

    /// The name cut to what iOS promises beside a 128-bit UUID (8 bytes after the record's
    /// header): the phone is still listed under its key id, and a payment to it goes through.
    @Test func aPayeeWhoseNameTheSystemCutIsStillListedAndPaid() async throws {
        let phones = try Phones(.init(localNameBytes: GATTProfile.guaranteedLocalNameLength), amount: 0)
        let listener = try await phones.listen()
        defer { listener.close() }
        var events = phones.browser.discover().makeAsyncIterator()
        guard case .found(let peer)? = await events.next() else {
            Issue.record("the payee's phone was not listed")
            return
        }
        #expect(peer.name == "")
        #expect(NearbyPayFlow.payee(phones.nearby.request.payee, matchesText: peer.keyID))
        async let served = phones.receiveFlow.serve(phones.nearby, on: listener)
        let dialer = phones.browser.dialer(for: peer)
        let request = try await NearbyPayFlow.fetchRequest(from: dialer, payee: peer.keyID, timeout: .seconds(60))
        let paid = try await phones.payFlow.pay(request, amount: 1_000, dialer: dialer)
        _ = try await served
        #expect(paid.payment.amount == 1_000)
    }

    @Test func theNearbyListFindsThePayeeAndItsPickedPhoneIsPaid() async throws {
        let phones = try Phones(amount: 0)
        let listener = try await phones.listen()
        var events = phones.browser.discover().makeAsyncIterator()
        guard case .found(let peer)? = await events.next() else {
            Issue.record("the payee's phone was not listed")
            return
        }
        #expect(peer.name == "Bob's iPhone")
        #expect(NearbyPayFlow.payee(phones.nearby.request.payee, matchesText: peer.keyID))

        // Picked without a scanned request: a first link fetches the request (§12.7), then
        // the payment dials the same phone again once that link is gone.
        async let served = phones.receiveFlow.serve(phones.nearby, on: listener)
        let dialer = phones.browser.dialer(for: peer)
        let request = try await NearbyPayFlow.fetchRequest(from: dialer, payee: peer.keyID, timeout: .seconds(60))
        #expect(request == phones.nearby.request)
        let paid = try await phones.payFlow.pay(request, amount: 1_000, dialer: dialer)
        _ = try await served
        #expect(paid.payment.amount == 1_000)

        // The payee stops showing the request: its phone leaves the list once unheard.
        listener.close()
        var lost = false
        while let event = await events.next() {
            if case .lost(let address) = event, address == peer.address {
                lost = true
                break
            }
        }
        #expect(lost)
    }

    @Test(arguments: [3, 12])
    func aCutConnectionResumesAndPaysOnce(afterPackets: Int) async throws {
        let phones = try Phones(.init(attMTU: 23, writeQueue: 2, notifyQueue: 2))
        phones.air.cut(afterPackets: afterPackets)
        let (paid, received) = try await phones.payScannedRequest()

        #expect(phones.air.snapshot.cuts == 1)
        #expect(paid.reconnects >= 1)
        #expect(paid.restarts == 0, "the payee kept the session: it resumed")
        #expect(received.payment.id == paid.payment.id)
        #expect(try phones.pair.payer.balance().spendable == 7_500)
        #expect(try phones.pair.payee.history().count == 1)
    }

    @Test func aPayerWalkingOutOfRangeAndBackResumesAndPaysOnce() async throws {
        let phones = try Phones(.init(attMTU: 23))
        phones.air.outOfRange(afterPackets: 8)
        // Back in range once the connection has dropped (the payer's dials fail meanwhile).
        let air = phones.air
        let back = Task {
            while air.snapshot.cuts == 0 { try await Task.sleep(for: .milliseconds(20)) }
            air.setPeripheralsInRange(true)
        }
        defer { back.cancel() }
        let (paid, received) = try await phones.payScannedRequest()
        #expect(paid.reconnects >= 1 && paid.restarts == 0)
        #expect(received.payment.id == paid.payment.id)
        #expect(try phones.pair.payer.balance().spendable == 7_500)
        #expect(try phones.pair.payee.history().count == 1)
    }

    @Test func thePayeesBluetoothOffAndOnAgainResumesThePayment() async throws {
        let phones = try Phones(.init(attMTU: 23))
        phones.air.powerOffPeripherals(afterPackets: 8)
        // Bluetooth back on once the payee's phone lost its links: the advertiser publishes
        // the request's service again and the payer's session resumes on it.
        let air = phones.air
        let back = Task {
            while air.snapshot.cuts == 0 { try await Task.sleep(for: .milliseconds(20)) }
            air.setPeripheralsState(.poweredOn)
        }
        defer { back.cancel() }
        let (paid, received) = try await phones.payScannedRequest()
        #expect(paid.reconnects >= 1 && paid.restarts == 0)
        #expect(received.payment.id == paid.payment.id)
        #expect(try phones.pair.payee.history().count == 1)
    }

    @Test func bluetoothTurnedOffMidPaymentFailsSayingSoAndKeepsThePayment() async throws {
        let phones = try Phones(.init(attMTU: 23))
        phones.air.powerOffCentrals(afterPackets: 6)
        let listener = try await phones.listen()
        let dialer = try #require(phones.browser.dialer(for: phones.nearby.request))
        let serving = Task { try await phones.receiveFlow.serve(phones.nearby, on: listener) }
        defer {
            listener.close()
            serving.cancel()
        }
        do {
            _ = try await phones.payFlow.pay(phones.nearby.request, dialer: dialer)
            Issue.record("the payment went through with the payer's Bluetooth off")
        } catch {
            // What the Send screen shows: what happened and what to do.
            #expect(String(describing: error).contains(GATTLinkError.bluetoothOff.description))
        }
        // Signed and kept: paying the request again (by QR) resends the same bytes.
        #expect(try phones.pair.payer.pendingPayments().count == 1)
    }

    @Test func theReceiveScreensEndpointIsAdvertisedAndPaid() async throws {
        let phones = try Phones()
        // What AppModel.makeReceive does: an endpoint per request, its hints in the request.
        let advertiser: any NearbyAdvertiser = phones.advertiser
        let endpoint = try advertiser.prepareReceive(keyID: phones.pair.payee.publicKey.keyID.hex, payeeName: "Bob")
        let nearby = try phones.receiveFlow.createRequest(amount: 1_500, payeeName: "Bob", hints: endpoint.hints)
        // Through the protocols, as SendModel and AppModel reach them (not their defaults).
        let browser: any NearbyBrowser = phones.browser
        let dialer = try #require(browser.dialer(for: nearby.request))
        async let served = phones.receiveFlow.serve(nearby, on: endpoint.listener)
        let paid = try await phones.payFlow.pay(nearby.request, dialer: dialer)
        #expect(try await served.payment.id == paid.payment.id)
        endpoint.listener.close()
        #expect(try phones.pair.payer.balance().spendable == 8_500)
    }

    @Test func aReceiveWithBluetoothOffIsQROnlyAndSaysWhy() throws {
        let phones = try Phones(.init(initialState: .poweredOff))
        #expect(throws: GATTLinkError.bluetoothOff) {
            _ = try phones.advertiser.prepareReceive(keyID: phones.pair.payee.publicKey.keyID.hex, payeeName: "Bob")
        }
    }

    @Test func aDialWithBluetoothOffSaysToTurnItOn() async throws {
        let phones = try Phones(.init(initialState: .poweredOff))
        let dialer = try #require(phones.browser.dialer(for: phones.nearby.request))
        await #expect(throws: GATTLinkError.bluetoothOff) { _ = try await dialer.connect() }
        var events = phones.browser.discover().makeAsyncIterator()
        let event = await events.next()
        #expect(event == .failed(GATTLinkError.bluetoothOff.description))
        await #expect(throws: GATTLinkError.bluetoothOff) { _ = try await phones.listen() }
    }

    @Test func aDialWithoutPermissionSaysWhereToAllowIt() async throws {
        let phones = try Phones(.init(initialState: .unauthorized))
        let dialer = try #require(phones.browser.dialer(for: phones.nearby.request))
        await #expect(throws: GATTLinkError.unauthorized) { _ = try await dialer.connect() }
    }

    @Test func aPayeeNotAdvertisingIsNotFound() async throws {
        let phones = try Phones()
        let dialer = try #require(phones.browser.dialer(for: phones.nearby.request))
        // Nobody serves the request: the dial's scan ends with "not found", it does not hang.
        await #expect(throws: GATTLinkError.payeeNotFound) { _ = try await dialer.connect() }
    }

    @Test func aCancelledDialEndsAndStopsScanning() async throws {
        let phones = try Phones()
        let dialer = try #require(phones.browser.dialer(for: phones.nearby.request))
        let task = Task { try await dialer.connect() }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }
}
