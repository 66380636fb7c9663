import Foundation
import NearbySession
import NearbySessionTesting
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletTestSupport

@MainActor
@Suite struct ReceiveModelTests {
    static let eur = Currency("EUR")!
    static let locale = Locale(identifier: "en_US")

    static func model(_ wallet: Wallet, frameBytes: Int = 600) -> ReceiveModel {
        ReceiveModel(
            wallet: wallet, currency: eur, payeeName: "Bob", hints: [.tcp("127.0.0.1:1")],
            sessionOptions: WalletPair.sessionOptions, frameBytes: frameBytes, locale: locale)
    }

    @Test func amountThenDescriptionThenReturnGenerates() async throws {
        let pair = try WalletPair()
        let bob = Self.model(pair.payee)
        bob.appear()
        #expect(bob.focus.focused == .amount)
        bob.amount.text = "4.20"
        bob.focusNext()
        #expect(bob.focus.focused == .description)
        bob.note = "coffee"
        bob.focusNext()  // Return on the last field submits
        #expect(bob.focus.focused == nil)
        await bob.pendingGeneration?.value
        #expect(bob.phase == .showingRequest)
        let request = try #require(bob.request)
        #expect(request.amount == 420 && request.payeeName == "Bob" && request.sessionKey != nil)
        #expect(bob.currentFrame == bob.requestFrames.first)
        #expect(!bob.isAnimated, "a request fits one frame at the default size")
    }

    @Test func anUnusableAmountDoesNotGenerate() async throws {
        let pair = try WalletPair()
        let bob = Self.model(pair.payee)
        bob.amount.text = "1.234"
        bob.focus.focus(.description)
        #expect(!bob.canGenerate)
        bob.submit()
        #expect(bob.focus.focused == .amount, "back to the field to fix")
        await bob.generate()
        #expect(bob.phase == .editing && bob.request == nil)
    }

    @Test func anEmptyAmountIsAnOpenRequestThePayerFills() async throws {
        let pair = try WalletPair()
        let bob = Self.model(pair.payee)
        await bob.generate()
        let request = try #require(bob.request)
        #expect(request.isOpenAmount)

        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale, method: .qr)
        alice.services = SendServices(wallet: pair.payer)
        alice.useRequest(request)
        alice.method = .qr
        #expect(!alice.isAmountLocked)
        alice.tapQuickAmount(10)
        alice.submit()
        await alice.send()
        #expect(alice.phase == .waitingForReceipt)
        guard case .receive(let bundle) = try SendFlowModelTests.scan(alice.paymentFrames) else {
            Issue.record("not a payment")
            return
        }
        await bob.receiveScanned(bundle)
        #expect(bob.incoming?.amount == 1_000)
    }

    @Test func severalFramesAnimateAndStillScan() async throws {
        let pair = try WalletPair()
        let bob = Self.model(pair.payee, frameBytes: 40)
        bob.amount.text = "3"
        await bob.generate()
        let frames = bob.requestFrames
        #expect(frames.count >= 3)
        #expect(bob.isAnimated)
        var seen: [String] = []
        for _ in 0..<frames.count {
            seen.append(try #require(bob.currentFrame))
            bob.advanceFrame()
        }
        #expect(seen == frames, "each frame once, in order")
        #expect(bob.frameIndex == 0, "and round again")
        guard case .send(let request) = try SendFlowModelTests.scan(frames) else {
            Issue.record("not a request")
            return
        }
        #expect(request == bob.request)
    }

    @Test func aScannedPaymentForSomeoneElseIsRefusedAndTheRequestStays() async throws {
        let pair = try WalletPair()
        let carol = try pair.otherWallet("carol")
        let bob = Self.model(pair.payee)
        bob.amount.text = "2"
        await bob.generate()
        // Alice paid Carol's request; Bob's camera reads that payment.
        let carolsRequest = try carol.createRequest(amount: 200)
        let payment = try pair.payer.pay(carolsRequest)
        await bob.receiveScanned(try PaymentBundle(decoding: payment.bundle))
        #expect(bob.phase == .showingRequest)
        #expect(bob.incoming == nil && bob.receiptFrames.isEmpty)
        #expect(bob.scanError?.hasPrefix("This payment was not accepted") == true)
        #expect(try pair.payee.balance().unsettled == 0)
    }

    @Test func aListenerNobodyPaysStopsWithAReason() async throws {
        let pair = try WalletPair()
        let bob = ReceiveModel(
            wallet: pair.payee, currency: Self.eur, hints: [.tcp("127.0.0.1:1")],
            sessionOptions: SessionOptions(retransmitAfter: .milliseconds(30), timeout: .milliseconds(200)), locale: Self.locale)
        await bob.generate()
        let network = SimulatedNetwork(.init(mtu: 185))
        await bob.listen(on: network)
        guard case .stopped(let message) = bob.listening else {
            Issue.record("expected the listener to stop, got \(bob.listening)")
            return
        }
        #expect(message.contains("Nothing was received"))
        #expect(bob.phase == .showingRequest, "the code stays up for a QR payment")
    }

    @Test func aQRPaymentWhileListeningStopsTheListener() async throws {
        let pair = try WalletPair()
        let bob = Self.model(pair.payee)
        bob.amount.text = "1"
        await bob.generate()
        let network = SimulatedNetwork(.init(mtu: 185))
        // Bob listens nearby (with the default, long timeout) while Alice pays by QR.
        async let listened: Void = bob.listen(on: network)
        while bob.listening == .idle { await Task.yield() }  // the listener is up
        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        alice.services = SendServices(wallet: pair.payer)
        alice.useRequest(try #require(bob.request))
        alice.method = .qr
        alice.submit()
        await alice.send()
        guard case .receive(let bundle) = try SendFlowModelTests.scan(alice.paymentFrames) else {
            Issue.record("not a payment")
            return
        }
        await bob.receiveScanned(bundle)
        await #expect(throws: (any Error).self, "the listener is closed: no payer can connect any more") {
            _ = try await network.connect()
        }
        await listened
        #expect(bob.phase == .received)
        #expect(bob.incoming?.amount == 100)
        guard case .stopped = bob.listening else {
            Issue.record("expected the listener stopped, got \(bob.listening)")
            return
        }
    }
}
