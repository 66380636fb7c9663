import Foundation
import NearbyGATT
import NearbyGATTTesting
import NearbySession
import OfflineNotes
import Synchronization
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The air between phones for these tests: as the payee's `NearbyAdvertiser` it makes a fresh
/// session service (and simulated GATT radio) per request and advertises the §12.8 local
/// name; as the payer's `NearbyBrowser` it lists what is advertised and dials the payee a
/// request's Bluetooth hint names — what the app's CoreBluetooth adapter does, over
/// `SimulatedGATTRadio` instead of a radio.
final class SimulatedBluetooth: NearbyAdvertiser, NearbyBrowser {
    private struct State {
        var radios: [GATTUUID: SimulatedGATTRadio] = [:]
        var names: [GATTUUID: String] = [:]
        var order: [GATTUUID] = []
        var off: GATTLinkError?
        var requestDials = 0
    }

    let attMTU: Int
    private let state = Mutex(State())

    init(attMTU: Int = 185) { self.attMTU = attMTU }

    /// Bluetooth turns off (or permission is refused): new receives are QR only.
    func turnOff(_ why: GATTLinkError) { state.withLock { $0.off = why } }

    /// Session services advertised so far, oldest first, with whether each is still served.
    var advertised: [(service: GATTUUID, open: Bool)] {
        state.withLock { s in s.order.map { ($0, !(s.radios[$0]?.listener.isClosed ?? true)) } }
    }

    /// How many times Send asked for a dialer from a request's hint.
    var requestDials: Int { state.withLock { $0.requestDials } }

    func radio(for service: GATTUUID) -> SimulatedGATTRadio? { state.withLock { $0.radios[service] } }

    // MARK: NearbyAdvertiser

    func prepareReceive(keyID: String, payeeName: String) throws -> NearbyEndpoint {
        let service = GATTProfile.makeSessionService()
        let radio = SimulatedGATTRadio(.init(attMTU: attMTU, queueCapacity: 2))
        try state.withLock { s in
            if let off = s.off { throw off }
            s.radios[service] = radio
            s.names[service] = GATTProfile.localName(keyIDHex: keyID, displayName: payeeName)
            s.order.append(service)
        }
        return NearbyEndpoint(hints: [GATTProfile.hint(for: service)], listener: radio.listener)
    }

    // MARK: NearbyBrowser

    func discover() -> AsyncStream<NearbyBrowserEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NearbyBrowserEvent.self)
        let found: [NearbyPeer] = state.withLock { s in
            s.order.compactMap { service in
                guard let radio = s.radios[service], !radio.listener.isClosed, let local = s.names[service],
                    let name = GATTProfile.advertisedName(local)
                else { return nil }
                return NearbyPeer(address: service.string, name: name.displayName, keyID: name.keyID)
            }
        }
        for peer in found { continuation.yield(.found(peer)) }
        return stream
    }

    func dialer(for peer: NearbyPeer) -> any LinkDialer {
        guard let service = GATTUUID(string: peer.address), let radio = radio(for: service) else {
            return GATTDialer { throw GATTLinkError.payeeNotFound }
        }
        return radio.dialer
    }

    func dialer(for request: PaymentRequest) -> (any LinkDialer)? {
        guard let service = GATTProfile.sessionService(in: request) else { return nil }
        state.withLock { $0.requestDials += 1 }
        return radio(for: service)?.dialer ?? GATTDialer { throw GATTLinkError.payeeNotFound }
    }
}

/// The app's Bluetooth seams: Receive serves each request on the advertiser's fresh endpoint,
/// and Send reaches the payee a scanned request's Bluetooth hint names through the browser.
@MainActor
@Suite struct BluetoothSeamTests {
    static let locale = Locale(identifier: "en_US")

    static func app(_ wallet: Wallet, air: SimulatedBluetooth) -> AppModel {
        let settings = InMemorySettingsStore()
        let app = AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
            notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings), nearbyBrowser: air,
            sessionOptions: WalletPair.sessionOptions, nearbyAdvertiser: air)
        app.start(wallet: AsyncWallet(wallet), session: nil)
        return app
    }

    /// Bob's Receive sheet from his app (no hints given: the advertiser's), generated.
    static func bobsRequest(_ bob: AppModel, amount: String) async throws -> ReceiveModel {
        let receive = try #require(bob.makeReceive(payeeName: "Bob", locale: locale))
        receive.amount.text = amount
        await receive.generate()
        #expect(receive.phase == .showingRequest)
        return receive
    }

    /// Alice's Send sheet from her app with Bob's scanned request, confirmed.
    static func alicesSend(_ alice: AppModel, request: PaymentRequest) throws -> SendModel {
        let send = try #require(alice.makeSend(locale: locale))
        send.useRequest(request)
        send.submit()
        guard case .confirming = send.phase else { throw ScanError.nothingEntered }
        return send
    }

    @Test func aScannedRequestIsPaidOverTheBluetoothServiceItsHintNames() async throws {
        let pair = try WalletPair()
        let air = SimulatedBluetooth(attMTU: 23)
        let bob = Self.app(pair.payee, air: air)
        let alice = Self.app(pair.payer, air: air)
        let receive = try await Self.bobsRequest(bob, amount: "12.50")
        let request = try #require(receive.request)
        let service = try #require(air.advertised.last?.service)
        #expect(request.hints == [GATTProfile.hint(for: service)], "the request carries the advertiser's hint")
        #expect(receive.nearbyProblem == nil)

        let send = try Self.alicesSend(alice, request: try PaymentRequest(decoding: request.encoded))
        #expect(send.method == .bluetooth)
        async let listened: Void = receive.listenNearby()
        await send.send()
        await listened

        #expect(send.phase == .paid(amount: 1_250))
        #expect(air.requestDials == 1, "Send dialed the payee through the request's hint")
        #expect(receive.phase == .received && receive.listening == .receiptSent)
        #expect(receive.incoming?.paymentID == send.signedPayment?.id)
        #expect(try pair.payer.balance().spendable == 8_750)
        #expect(try pair.payee.balance().unsettled == 1_250)
        #expect(air.radio(for: service).map { $0.counters.longestPacket } == 20)
        #expect(air.advertised.last?.open == false, "the served endpoint stopped advertising")
    }

    @Test func everyRequestGetsItsOwnServiceAndTheOldOneStopsAdvertising() async throws {
        let pair = try WalletPair()
        let air = SimulatedBluetooth()
        let bob = Self.app(pair.payee, air: air)
        let receive = try await Self.bobsRequest(bob, amount: "5.00")
        receive.edit()
        #expect(air.advertised.map(\.open) == [false], "back to the form: the unserved endpoint is closed")
        receive.amount.text = "6.00"
        await receive.generate()
        #expect(air.advertised.count == 2)
        #expect(air.advertised[0].service != air.advertised[1].service)
        #expect(air.advertised.map(\.open) == [false, true])
        #expect(receive.request.flatMap { GATTProfile.sessionService(in: $0) } == air.advertised[1].service)
        // The screen closes: advertising stops.
        receive.stopListening()
        #expect(air.advertised.map(\.open) == [false, false])
        // Explicit hints bypass the advertiser.
        let tcp = try #require(bob.makeReceive(hints: [.tcp("127.0.0.1:1")], locale: Self.locale))
        await tcp.generate()
        #expect(tcp.request?.hints == [.tcp("127.0.0.1:1")])
        #expect(air.advertised.count == 2)
    }

    @Test func bluetoothOffMakesAQROnlyRequestAndSaysWhy() async throws {
        let pair = try WalletPair()
        let air = SimulatedBluetooth()
        air.turnOff(.bluetoothOff)
        let bob = Self.app(pair.payee, air: air)
        let alice = Self.app(pair.payer, air: air)
        let receive = try await Self.bobsRequest(bob, amount: "3.00")
        #expect(receive.request?.hints == [])
        #expect(receive.nearbyProblem == GATTLinkError.bluetoothOff.description)
        await receive.listenNearby()
        #expect(receive.listening == .stopped(message: "Bluetooth is off: turn it on in Settings, or pay by QR."))
        let send = try Self.alicesSend(alice, request: try #require(receive.request))
        #expect(send.method == .qr, "nothing to reach nearby: paid by QR")
        #expect(air.requestDials == 0)
    }

    @Test func aPickedDeviceWinsOverTheHint() async throws {
        let pair = try WalletPair()
        let air = SimulatedBluetooth()
        let bob = Self.app(pair.payee, air: air)
        let alice = Self.app(pair.payer, air: air)
        let receive = try await Self.bobsRequest(bob, amount: "2.00")
        let request = try #require(receive.request)

        // The Nearby devices sheet lists Bob from his advertised name, with his key id.
        let devices = try #require(alice.makeNearbyDevices(request: request))
        devices.start()
        #expect(await untilTrue { devices.devices.count == 1 })
        let device = try #require(devices.devices.first)
        #expect(device.match == .matches && device.peer.name == "Bob")
        #expect(device.peer.keyID == String(pair.payee.publicKey.keyID.hex.prefix(8)))

        let send = try #require(alice.makeSend(locale: Self.locale))
        #expect(await devices.pick(device, into: send))
        devices.stop()
        send.submit()
        async let listened: Void = receive.listenNearby()
        await send.send()
        await listened
        #expect(send.phase == .paid(amount: 200))
        #expect(air.requestDials == 0, "the picked device's dialer was used, not the hint's")
        #expect(try pair.payee.balance().unsettled == 200)
    }
}
