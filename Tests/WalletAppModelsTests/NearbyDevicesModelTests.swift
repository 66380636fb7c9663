import Foundation
import NearbySession
import NearbySessionTesting
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The Nearby devices sheet: discovery on the scripted browser, the timeout on a test clock,
/// the key-id rule, and a picked device paid over the simulated link.
@MainActor
@Suite struct NearbyDevicesModelTests {
    static let eur = Currency("EUR")!
    static let locale = Locale(identifier: "en_US")

    static func peer(_ name: String, _ key: PublicKeyBytes, address: String? = nil) -> NearbyPeer {
        NearbyPeer(address: address ?? "ble:\(name)", name: name, keyID: key.keyID.hex)
    }

    @Test func searchingListsDevicesAndShowsNothingFoundAfterTheTimeoutOnTheAppClock() async throws {
        let browser = InMemoryNearbyBrowser()
        let clock = TestClock(1_000)
        let model = NearbyDevicesModel(browser: browser, clock: clock, timeout: 15)
        #expect(model.state == .idle)
        model.start()
        #expect(model.state == .searching)
        #expect(await untilTrue { clock.sleeping == 1 && browser.activeDiscoveries == 1 })
        clock.advance(14)
        #expect(model.state == .searching, "one second before the timeout")
        clock.advance(1)
        #expect(await untilTrue { model.state == .nothingFound })

        // A device that shows up later is listed, with its name and key id.
        let key = SoftwareSigner().publicKey
        let bob = Self.peer("Bob's phone", key)
        browser.announce(bob, dialer: SimulatedNetwork(.init(mtu: 185)))
        #expect(await untilTrue { model.devices.count == 1 })
        let row = try #require(model.devices.first)
        #expect(model.state == .found([row]))
        #expect(row.name == "Bob's phone" && row.keyText == "key \(key.keyID.hex)" && row.match == .noRequest)
        #expect(
            NearbyDevicesModel.Device(peer: NearbyPeer(address: "x", name: "", keyID: "ab"), match: .noRequest).name
                == "Unnamed device")

        browser.withdraw(bob.address)
        #expect(await untilTrue { model.state == .nothingFound }, "the only device left")

        model.stop()
        #expect(model.state == .idle && model.devices.isEmpty)
        #expect(await untilTrue { browser.activeDiscoveries == 0 }, "discovery stopped with the sheet")
        #expect(await untilTrue { clock.sleeping == 0 }, "and the timeout with it")
    }

    @Test func aDeviceFoundBeforeTheTimeoutIsNeverNothingFound() async throws {
        let browser = InMemoryNearbyBrowser()
        let clock = TestClock(1_000)
        let key = SoftwareSigner().publicKey
        browser.announce(Self.peer("Bob", key), dialer: SimulatedNetwork(.init(mtu: 185)))
        let model = NearbyDevicesModel(browser: browser, clock: clock, timeout: 10)
        model.start()
        #expect(await untilTrue { model.devices.count == 1 && clock.sleeping == 1 }, "a known device is reported at once")
        clock.advance(60)
        #expect(await untilTrue { clock.sleeping == 0 })
        #expect(model.state == .found(model.devices))
    }

    @Test func aDiscoveryFailureShowsItsMessageAndSearchAgainStartsOver() async throws {
        let browser = InMemoryNearbyBrowser()
        let clock = TestClock(1_000)
        let model = NearbyDevicesModel(browser: browser, clock: clock, timeout: 15)
        model.start()
        #expect(await untilTrue { browser.activeDiscoveries == 1 })
        browser.fail("Bluetooth is off. Turn it on in Control Centre, then search again.")
        #expect(await untilTrue { model.state == .failed("Bluetooth is off. Turn it on in Control Centre, then search again.") })
        clock.advance(100)
        #expect(await untilTrue { clock.sleeping == 0 })
        #expect(model.state != .nothingFound, "the failure stays: the timeout of the failed search does not replace it")

        model.start()
        #expect(model.state == .searching && browser.discoveriesStarted == 2)
        #expect(await untilTrue { browser.activeDiscoveries == 1 && clock.sleeping == 1 })
    }

    @Test func afterAScanOnlyThePayeesDeviceCanBePickedAndSendPaysItByBluetooth() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await SendFlowModelTests.bobsRequest(pair, amount: "12.50")
        let request = try #require(bob.request)
        let network = SimulatedNetwork(.init(mtu: 185))
        let browser = InMemoryNearbyBrowser()
        let mallory = try pair.otherWallet("mallory")
        browser.announce(Self.peer("Bob", pair.payee.publicKey), dialer: network)
        // Mallory advertises Bob's name: only the key id tells them apart.
        browser.announce(Self.peer("Bob", mallory.publicKey, address: "ble:mallory"), dialer: SimulatedNetwork(.init(mtu: 185)))
        // A device advertising a key id too short to check never matches.
        browser.announce(
            NearbyPeer(address: "ble:short", name: "Short", keyID: String(pair.payee.publicKey.keyID.hex.prefix(6))),
            dialer: network)

        let nearby = NearbyDevicesModel(browser: browser, clock: TestClock(1_000))
        nearby.useRequest(request)
        nearby.start()
        #expect(await untilTrue { nearby.devices.count == 3 })
        #expect(nearby.devices.map(\.match) == [.matches, .notMatching, .notMatching])
        #expect(nearby.devices[1].mismatchText != nil && nearby.devices[0].mismatchText == nil)

        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        // No dialer in the services: the picked device's is the one used.
        alice.services = SendServices(wallet: pair.payer, sessionOptions: WalletPair.sessionOptions)
        #expect(await nearby.pick(nearby.devices[1], into: alice) == false)
        guard case .failed(let why) = nearby.pick else { throw ScanError.nothingEntered }
        #expect(why.contains("not the payee"))
        #expect(alice.recipient == nil && alice.nearbyPeer == nil, "Send is untouched")

        #expect(await nearby.pick(nearby.devices[0], into: alice))
        #expect(nearby.pick == .handedToSend(nearby.devices[0].peer))
        #expect(alice.recipient == .request(request) && alice.method == .bluetooth)
        #expect(alice.nearbyPeer?.address == "ble:Bob")

        alice.submit()
        async let listened: Void = bob.listen(on: network)
        await alice.send()
        await listened
        #expect(alice.phase == .paid(amount: 1_250))
        #expect(bob.phase == .received)
        #expect(try pair.payee.balance().unsettled == 1_250)

        // Another request forgets the device picked for this one.
        let other = try pair.payee.createRequest(amount: 100)
        alice.useRequest(other)
        #expect(alice.nearbyPeer == nil)
    }

    @Test func withoutAScanPickingFetchesTheDevicesRequestAndKeepsItOnlyForItsKeyID() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await SendFlowModelTests.bobsRequest(pair, amount: "5.00")
        let network = SimulatedNetwork(.init(mtu: 185))
        let listening = Task { await bob.listen(on: network) }
        defer { bob.stopListening() }
        let mallory = try pair.otherWallet("mallory")
        let browser = InMemoryNearbyBrowser()
        // The same radio address, advertising another key id: the request there is Bob's.
        browser.announce(Self.peer("Bob?", mallory.publicKey, address: "ble:imposter"), dialer: network)
        browser.announce(Self.peer("Bob", pair.payee.publicKey), dialer: network)
        let nearby = NearbyDevicesModel(browser: browser, clock: TestClock(1_000))
        nearby.start()
        #expect(await untilTrue { nearby.devices.count == 2 })
        #expect(nearby.devices.allSatisfy { $0.match == .noRequest })
        #expect(await untilTrue { bob.listening == .waiting })

        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        alice.services = SendServices(wallet: pair.payer, sessionOptions: WalletPair.sessionOptions)
        #expect(await nearby.pick(nearby.devices[0], into: alice) == false)
        guard case .failed(let why) = nearby.pick else { throw ScanError.nothingEntered }
        #expect(why.contains("not \(mallory.publicKey.keyID.hex)"), "\(why)")
        #expect(alice.recipient == nil)
        #expect(try pair.payer.pendingPayments().isEmpty, "nothing was signed")

        #expect(await nearby.pick(nearby.devices[1], into: alice))
        #expect(alice.recipient == .request(try #require(bob.request)) && alice.method == .bluetooth)
        alice.submit()
        await alice.send()
        #expect(alice.phase == .paid(amount: 500))
        await listening.value
        #expect(bob.phase == .received)
    }

    @Test func aRequestWithoutANearbySessionIsNotHandedToSendAndABusySendIsLeftAlone() async throws {
        let pair = try WalletPair(funds: 10_000)
        let qrOnly = try pair.payee.createRequest(amount: 500)
        #expect(qrOnly.sessionKey == nil)
        let browser = InMemoryNearbyBrowser()
        browser.announce(Self.peer("Bob", pair.payee.publicKey), dialer: SimulatedNetwork(.init(mtu: 185)))
        let nearby = NearbyDevicesModel(browser: browser, clock: TestClock(1_000), request: qrOnly)
        nearby.start()
        #expect(await untilTrue { nearby.devices.count == 1 })
        #expect(nearby.devices[0].match == .matches)
        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        #expect(await nearby.pick(nearby.devices[0], into: alice) == false)
        guard case .failed(let why) = nearby.pick else { throw ScanError.nothingEntered }
        #expect(why.contains("Pay it by QR"))
        #expect(alice.recipient == nil && alice.nearbyPeer == nil)
        // Another scan resets the pick.
        nearby.useRequest(nil)
        #expect(nearby.pick == .none && nearby.devices[0].match == .noRequest)
    }

    @Test func theKeyIDRuleIsTheCommandLines() throws {
        let key = SoftwareSigner().publicKey
        let id = key.keyID.hex
        #expect(NearbyPayFlow.payee(key, matchesText: id))
        #expect(NearbyPayFlow.payee(key, matchesText: String(id.prefix(8)).uppercased()), "8 hex digits, any case")
        #expect(!NearbyPayFlow.payee(key, matchesText: String(id.prefix(7))), "fewer than 8 never match")
        #expect(NearbyPayFlow.payee(key, matchesText: key.hex), "the whole key")
        #expect(!NearbyPayFlow.payee(key, matchesText: String(id.dropFirst())))
        #expect(!NearbyPayFlow.payee(key, matchesText: nil))
        #expect(!NearbyPayFlow.payee(key, matchesText: "zzzzzzzz"))
    }
}
