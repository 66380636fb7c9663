import Foundation
import NearbySession
import NearbySessionTesting
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// What VoiceOver says about the screens that change on their own (Accessibility+Text.swift):
/// the animated codes' value, the scanner's parts, and the nearby payment's stages on both
/// phones. The views only post or show these texts, so what a VoiceOver user hears is checked
/// here: once per stage, never once per byte or frame.
@MainActor
@Suite struct AccessibilityTextTests {
    static let eur = Currency("EUR")!
    static let locale = Locale(identifier: "en_US")

    @Test func aPaymentIsAnnouncedOncePerStageNeverPerByte() {
        func said(_ phase: SendPhase, _ method: SendMethod = .bluetooth) -> String? {
            SendModel.progressAnnouncement(for: phase, method: method, currency: Self.eur)
        }
        #expect(said(.editing) == nil, "nothing is under way while editing")
        #expect(said(.signing) == "Signing the payment.")
        #expect(said(.contactingServer, .online) == "Sending the payment through the issuer.")
        #expect(said(.sending(sent: 0, total: 900)) == "Connecting to the payee's phone.")
        #expect(said(.sending(sent: 180, total: 900)) == "Sending the payment to the payee's phone.")
        #expect(
            said(.sending(sent: 180, total: 900)) == said(.sending(sent: 720, total: 900)),
            "more bytes out is the same stage: nothing new to announce")
        #expect(said(.waitingForReceipt) == "Payment sent. Waiting for the payee's receipt.")
        #expect(
            said(.waitingForReceipt, .qr) == "Payment signed. Show the codes to the payee, then scan the receipt on their screen."
        )
        #expect(said(.paid(amount: 1_250)) == "Paid 12.50 Euro.", "the amount spoken, not its digits and code")
        #expect(
            said(.failed(message: "The payee's phone went away.", canTryAgain: true))
                == "The payment failed. The payee's phone went away.")
    }

    @Test func theSendScreenAnnouncesNothingUntilAPaymentStarts() throws {
        let fixture = try MessageFixture()
        let send = SendModel(
            currency: Self.eur, offlineSpendable: 10_000, settled: 0, clock: TestClock(MessageFixture.now), locale: Self.locale)
        #expect(send.progressAnnouncement == nil)
        send.useRequest(try fixture.request(1_250))
        send.submit()
        guard case .confirming = send.phase else {
            Issue.record("the request did not reach the confirmation: \(send.missing)")
            return
        }
        #expect(send.progressAnnouncement == nil, "the confirmation card is on screen, nothing is under way")
    }

    @Test func aNearbyPaymentEndsAnnouncedAsPaidOnOnePhoneAndReceiptSentOnTheOther() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await SendFlowModelTests.bobsRequest(pair, amount: "12.50")
        #expect(bob.listeningAnnouncement == nil, "not listening yet")
        let network = SimulatedNetwork(.init(mtu: 185))
        let alice = try SendFlowModelTests.alicesConfirmedSend(pair, bob: bob, dialer: network)
        #expect(alice.progressAnnouncement == nil)

        async let listened: Void = bob.listen(on: network)
        await alice.send()
        await listened

        #expect(alice.phase == .paid(amount: 1_250))
        #expect(alice.progressAnnouncement?.hasPrefix("Paid 12.50 ") == true)
        #expect(bob.listeningAnnouncement == "Receipt sent to the payer.")
    }

    @Test func theListenerIsAnnouncedOncePerStageNeverPerByte() {
        typealias Listening = ReceiveModel.Listening
        #expect(ReceiveModel.listeningAnnouncement(for: .idle) == nil)
        #expect(ReceiveModel.listeningAnnouncement(for: .waiting) == "Waiting for a payer nearby.")
        #expect(ReceiveModel.listeningAnnouncement(for: .payerConnected(link: 1)) == "A payer's phone connected.")
        #expect(
            ReceiveModel.listeningAnnouncement(for: .payerConnected(link: 2))
                == ReceiveModel.listeningAnnouncement(for: .payerConnected(link: 1)),
            "a resumed link is the same stage")
        #expect(ReceiveModel.listeningAnnouncement(for: .receiving(bytes: 100)) == "Receiving the payment.")
        #expect(
            ReceiveModel.listeningAnnouncement(for: .receiving(bytes: 100))
                == ReceiveModel.listeningAnnouncement(for: .receiving(bytes: 800)))
        #expect(ReceiveModel.listeningAnnouncement(for: .verified) == "Payment verified. Sending the receipt.")
        #expect(
            ReceiveModel.listeningAnnouncement(for: .refused(message: "It was already spent."))
                == "The payment was refused: It was already spent.")
        #expect(ReceiveModel.listeningAnnouncement(for: .receiptSent) == "Receipt sent to the payer.")
        #expect(
            ReceiveModel.listeningAnnouncement(for: .stopped(message: "Nobody paid in time."))
                == "Stopped listening nearby: Nobody paid in time.")
    }

    @Test func theAnimatedRequestCodeSaysWhichPartShowsAndWhoReadsIt() async throws {
        let pair = try WalletPair()
        let bob = ReceiveModel(
            wallet: pair.payee, currency: Self.eur, payeeName: "Bob", hints: [.tcp("127.0.0.1:1")],
            sessionOptions: WalletPair.sessionOptions, frameBytes: 40, locale: Self.locale)
        #expect(bob.requestCodeAccessibilityValue == nil, "no code before a request exists")
        bob.amount.text = "4.20"
        await bob.generate()
        let count = bob.requestFrames.count
        try #require(count > 2)
        #expect(
            bob.requestCodeAccessibilityValue
                == "Showing part 1 of \(count). Hold the screen up to the payer's camera until it has read every part.")
        bob.advanceFrame()
        #expect(bob.requestCodeAccessibilityValue?.hasPrefix("Showing part 2 of \(count).") == true)
        for _ in 1..<count { bob.advanceFrame() }
        #expect(bob.requestCodeAccessibilityValue?.hasPrefix("Showing part 1 of \(count).") == true, "the parts cycle")

        let single = ReceiveModel(
            wallet: pair.payee, currency: Self.eur, payeeName: "Bob", hints: [.tcp("127.0.0.1:1")],
            sessionOptions: WalletPair.sessionOptions, locale: Self.locale)
        single.amount.text = "1"
        await single.generate()
        try #require(single.requestFrames.count == 1)
        #expect(single.requestCodeAccessibilityValue == "Hold the screen up to the payer's camera.", "one frame has no parts")
    }

    @Test func thePaymentAndReceiptCodesNameTheirPartAndTheirReader() {
        #expect(
            SendModel.paymentCodeAccessibilityValue(showing: 2, of: 8)
                == "Showing part 3 of 8. Hold the screen up to the payee's camera until it has read every part.")
        #expect(SendModel.paymentCodeAccessibilityValue(showing: 8, of: 8).hasPrefix("Showing part 1 of 8."))
        #expect(SendModel.paymentCodeAccessibilityValue(showing: 0, of: 1) == "Hold the screen up to the payee's camera.")
        #expect(
            ReceiveModel.receiptCodeAccessibilityValue(showing: 0, of: 2)
                == "Showing part 1 of 2. Hold the screen up to the payer's camera until it has read every part.")
    }

    @Test func theScannerSaysHowManyPartsItHasReceived() throws {
        let fixture = try MessageFixture()
        let frames = try fixture.frames(try fixture.request(1_250), count: 3)
        try #require(frames.count == 3)
        let scan = ScanAssembler()
        #expect(scan.progressAnnouncement == nil)
        scan.scan(frames[2])
        #expect(scan.progressAnnouncement == "1 of 3 parts received.")
        scan.scan(frames[2])
        #expect(scan.progressAnnouncement == "1 of 3 parts received.", "a part seen again is nothing new")
        scan.scan(frames[0])
        #expect(scan.progressAnnouncement == "2 of 3 parts received.")
        scan.reset()
        #expect(scan.progressAnnouncement == nil)
        #expect(ScanProgress(received: 1, expected: 1).accessibilityText == "The code's one part received.")
    }

    @Test func theNearbySearchAndPickAreAnnounced() async throws {
        let browser = InMemoryNearbyBrowser()
        let clock = TestClock(1_000)
        let model = NearbyDevicesModel(browser: browser, clock: clock, timeout: 10)
        #expect(model.searchAnnouncement == nil && model.pickAnnouncement == nil)
        model.start()
        defer { model.stop() }
        #expect(model.searchAnnouncement == "Searching for nearby wallets.")
        let key = SoftwareSigner().publicKey
        browser.announce(
            NearbyPeer(address: "ble:bob", name: "Bob", keyID: key.keyID.hex), dialer: SimulatedNetwork(.init(mtu: 185)))
        #expect(await untilTrue { model.devices.count == 1 })
        #expect(model.searchAnnouncement == "1 wallet found nearby.")
        browser.announce(
            NearbyPeer(address: "ble:carol", name: "Carol", keyID: key.keyID.hex), dialer: SimulatedNetwork(.init(mtu: 185)))
        #expect(await untilTrue { model.devices.count == 2 })
        #expect(model.searchAnnouncement == "2 wallets found nearby.")

        let bob = NearbyPeer(address: "ble:bob", name: "Bob", keyID: "1a2b3c4d")
        let unnamed = NearbyPeer(address: "ble:x", name: "", keyID: "1a2b3c4d")
        #expect(NearbyDevicesModel.pickAnnouncement(for: .none) == nil)
        #expect(NearbyDevicesModel.pickAnnouncement(for: .fetchingRequest(bob)) == "Connecting to Bob for its request.")
        #expect(
            NearbyDevicesModel.pickAnnouncement(for: .fetchingRequest(unnamed)) == "Connecting to the device for its request.")
        #expect(NearbyDevicesModel.pickAnnouncement(for: .handedToSend(bob)) == "Connected. Ready to pay Bob by Bluetooth.")
        #expect(
            NearbyDevicesModel.pickAnnouncement(for: .failed("Its key does not match."))
                == "This device cannot be paid. Its key does not match.")
    }
}
