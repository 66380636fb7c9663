import Foundation
import NearbySession
import NearbySessionTesting
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// Send and Receive driving the real flows: two real wallets (one dev issuer), the simulated
/// nearby link, the QR frames, and a real issuer on loopback for the online path.
@MainActor
@Suite struct SendFlowModelTests {
    static let eur = Currency("EUR")!
    static let locale = Locale(identifier: "en_US")
    static let hints = [TransportHint.tcp("127.0.0.1:1")]

    /// Bob's Receive screen, with `amount` typed and generated.
    static func bobsRequest(_ pair: WalletPair, amount: String, expiresIn: UInt64 = 600) async throws -> ReceiveModel {
        let bob = ReceiveModel(
            wallet: pair.payee, currency: eur, payeeName: "Bob", hints: hints, sessionOptions: WalletPair.sessionOptions,
            expiresIn: expiresIn, locale: locale)
        bob.appear()
        bob.amount.text = amount
        bob.focusNext()
        bob.note = "lunch"
        await bob.generate()
        #expect(bob.phase == .showingRequest)
        return bob
    }

    /// Alice's scanner reading `frames` (last first: any order works).
    static func scan(_ frames: [String]) throws -> ScanResult {
        let scanner = ScanAssembler()
        for frame in frames.reversed() { scanner.scan(frame) }
        return try #require(scanner.result)
    }

    /// Alice's Send screen prefilled with the request Bob shows, confirmed.
    static func alicesConfirmedSend(
        _ pair: WalletPair, bob: ReceiveModel, dialer: (any LinkDialer)?, method: SendMethod? = nil,
        clock: any AppClock = SystemClock(),
        believedSpendable: UInt64 = 10_000
    ) throws -> SendModel {
        guard case .send(let request) = try scan(bob.requestFrames) else { throw ScanError.notAPaymentMessage(type: nil) }
        let alice = SendModel(currency: eur, offlineSpendable: believedSpendable, settled: 0, clock: clock, locale: locale)
        alice.services = SendServices(wallet: pair.payer, dialer: dialer, sessionOptions: WalletPair.sessionOptions)
        alice.appear()
        alice.useRequest(request)
        if let method { alice.method = method }
        alice.submit()
        guard case .confirming = alice.phase else { throw ScanError.nothingEntered }
        return alice
    }

    @Test func bobsRequestIsPaidNearbyAtMTU185OverACutLinkThatResumes() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await Self.bobsRequest(pair, amount: "12.50")
        // The first link dies after two frames: mid-payment, so the session resumes on a second one.
        let network = SimulatedNetwork(.init(mtu: 185, cutAfterFrames: [0: 2]))
        let alice = try Self.alicesConfirmedSend(pair, bob: bob, dialer: network)
        #expect(alice.method == .bluetooth, "the request offers a nearby session")

        async let listened: Void = bob.listen(on: network)
        await alice.send()
        await listened

        #expect(alice.phase == .paid(amount: 1_250))
        #expect(bob.phase == .received)
        let incoming = try #require(bob.incoming)
        #expect(incoming.amount == 1_250 && incoming.method == .bluetooth)
        // Both histories call it what the app's link is (the flows' default is the CLI's TCP).
        #expect(try pair.payer.history().first?.method == PaymentMethod.bluetooth.rawValue)
        #expect(try pair.payee.history().first?.method == PaymentMethod.bluetooth.rawValue)
        #expect(incoming.payerKeyID == pair.payer.publicKey.keyID)
        #expect(incoming.paymentID == alice.signedPayment?.id)
        #expect(bob.listening == .receiptSent)
        #expect(network.counters.links >= 2, "the cut link was replaced")
        #expect(try pair.payer.balance().spendable == 8_750)
        #expect(try pair.payee.balance().unsettled == 1_250)
    }

    @Test func theQROnlyPathPaysWithFramesBothWays() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await Self.bobsRequest(pair, amount: "30")
        let alice = try Self.alicesConfirmedSend(pair, bob: bob, dialer: nil, method: .qr)

        await alice.send()
        #expect(alice.phase == .waitingForReceipt)
        #expect(!alice.paymentFrames.isEmpty)

        guard case .receive(let bundle) = try Self.scan(alice.paymentFrames) else {
            Issue.record("Alice's frames are not a payment")
            return
        }
        await bob.receiveScanned(bundle)
        #expect(bob.phase == .received)
        #expect(bob.incoming?.amount == 3_000 && bob.incoming?.method == .qr)
        #expect(bob.incoming?.payerKeyID == pair.payer.publicKey.keyID)

        guard case .confirm(let receipt) = try Self.scan(bob.receiptFrames) else {
            Issue.record("Bob's frames are not a receipt")
            return
        }
        await alice.acceptReceipt(receipt)
        #expect(alice.phase == .paid(amount: 3_000))
        #expect(alice.receiptError == nil)
        #expect(try pair.payee.balance().unsettled == 3_000)
        #expect(try pair.payer.pendingPayments().isEmpty)
    }

    @Test func aReceiptForAnotherPaymentLeavesThePaymentWaiting() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await Self.bobsRequest(pair, amount: "5")
        let alice = try Self.alicesConfirmedSend(pair, bob: bob, dialer: nil, method: .qr)
        await alice.send()
        // A receipt Bob's wallet signed for another payment (a second request, paid directly).
        let other = try pair.payee.createRequest(amount: 100)
        let otherPayment = try pair.payer.pay(other)
        let otherReceipt = try pair.payee.receive(otherPayment.bundle).receipt
        await alice.acceptReceipt(otherReceipt)
        #expect(alice.phase == .waitingForReceipt)
        #expect(alice.receiptError?.contains("not for this payment") == true)
    }

    @Test func anExpiredRequestFailsWithNothingPaid() async throws {
        let pair = try WalletPair(funds: 10_000)
        // Expires the moment it is made; Alice's screen clock is behind, so its checklist lets
        // her confirm and the wallet is the one that says no.
        let bob = try await Self.bobsRequest(pair, amount: "5", expiresIn: 0)
        let behind = TestClock(Timestamp(Date().timeIntervalSince1970) - 3_600)
        let alice = try Self.alicesConfirmedSend(pair, bob: bob, dialer: SimulatedNetwork(.init(mtu: 185)), clock: behind)
        await alice.send()
        guard case .failed(let message, let canTryAgain) = alice.phase else {
            Issue.record("expected a failure, got \(alice.phase)")
            return
        }
        #expect(message.contains("expired") && message.contains("new one"))
        #expect(!canTryAgain)
        #expect(alice.signedPayment == nil)
        #expect(try pair.payer.balance().spendable == 10_000)
    }

    @Test func insufficientFundsFailsWithAClearMessage() async throws {
        let pair = try WalletPair(funds: 1_000)
        let bob = try await Self.bobsRequest(pair, amount: "50")
        // The screen's balance is stale (as between two snapshots); the wallet knows better.
        let alice = try Self.alicesConfirmedSend(
            pair, bob: bob, dialer: SimulatedNetwork(.init(mtu: 185)), believedSpendable: 10_000)
        await alice.send()
        guard case .failed(let message, let canTryAgain) = alice.phase else {
            Issue.record("expected a failure, got \(alice.phase)")
            return
        }
        #expect(message.hasPrefix("Insufficient balance"))
        #expect(message.contains("Nothing was paid"))
        #expect(!canTryAgain)
        #expect(alice.signedPayment == nil)
    }

    @Test func aFailedSessionKeepsThePaymentAndTryAgainResendsTheSameBytes() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await Self.bobsRequest(pair, amount: "8")
        // Nobody listens on this network: the session times out with the payment signed.
        let silent = SimulatedNetwork(.init(mtu: 185))
        let alice = try Self.alicesConfirmedSend(pair, bob: bob, dialer: silent)
        alice.services?.sessionOptions = SessionOptions(retransmitAfter: .milliseconds(30), timeout: .milliseconds(300))
        await alice.send()
        silent.close()
        guard case .failed(let message, let canTryAgain) = alice.phase else {
            Issue.record("expected a failure, got \(alice.phase)")
            return
        }
        #expect(canTryAgain)
        #expect(message.contains("signed and kept"))
        let first = try #require(alice.signedPayment)

        // Bob listens now; "Try again" resends.
        let network = SimulatedNetwork(.init(mtu: 185))
        alice.services?.dialer = network
        alice.services?.sessionOptions = WalletPair.sessionOptions
        async let listened: Void = bob.listen(on: network)
        await alice.tryAgain()
        await listened

        #expect(alice.phase == .paid(amount: 800))
        #expect(alice.signedPayment?.bundle == first.bundle, "the same signed bytes, not a second payment")
        #expect(bob.incoming?.paymentID == first.id, "Bob verified the payment signed the first time")
        #expect(try pair.payer.balance().spendable == 9_200, "paid once")
        #expect(try pair.payee.history().count == 1)
    }

    @Test func theOnlineMethodSendsToATypedAccountThroughARealIssuer() async throws {
        try await LoopbackIssuer.with { h in
            let (aliceSession, _) = try await h.loggedIn("alice", funds: 3_000)
            let (bobSession, bobStore) = try await h.loggedIn("bob")
            let bobEmail = try #require(try bobStore.loadLogin().email)

            let alice = SendModel(currency: Self.eur, offlineSpendable: 0, settled: 3_000, locale: Self.locale)
            alice.services = SendServices(wallet: aliceSession.wallet, session: aliceSession)
            alice.recipientText = bobEmail
            #expect(alice.method == .online)
            alice.amountText = "10.00"
            alice.submit()
            await alice.send()
            #expect(alice.phase == .paid(amount: 1_000))
            #expect(try await aliceSession.account().balance == 2_000)
            #expect(try await bobSession.account().balance == 1_000)

            // An account that does not exist: refused, and not offered again blindly.
            let again = SendModel(currency: Self.eur, offlineSpendable: 0, settled: 2_000, locale: Self.locale)
            again.services = SendServices(wallet: aliceSession.wallet, session: aliceSession)
            again.recipientText = "nobody-\(UUID().uuidString.prefix(6))@flows.test"
            again.amountText = "1"
            again.submit()
            await again.send()
            guard case .failed(let message, let canTryAgain) = again.phase else {
                Issue.record("expected a failure, got \(again.phase)")
                return
            }
            #expect(message.contains("did not go through"))
            #expect(!canTryAgain)
            #expect(try await aliceSession.account().balance == 2_000)
        }
    }

    @Test func aRefusingPayeeIsReportedAndNotRetried() async throws {
        let pair = try WalletPair(funds: 10_000)
        // Bob's wallet says no to whatever arrives (as it does to a payment it cannot accept).
        let refusing = NearbyReceiveFlow(
            wallet: pair.payee, options: WalletPair.sessionOptions, accept: { _, _ in throw WalletError.requestAlreadyPaid })
        let nearby = try refusing.createRequest(amount: 600, payeeName: "Bob", hints: Self.hints)
        let network = SimulatedNetwork(.init(mtu: 185))
        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        alice.services = SendServices(wallet: pair.payer, dialer: network, sessionOptions: WalletPair.sessionOptions)
        alice.useRequest(nearby.request)
        alice.submit()
        async let served: Void = { _ = try? await refusing.serve(nearby, on: network) }()
        await alice.send()
        network.close()
        await served
        guard case .failed(let message, let canTryAgain) = alice.phase else {
            Issue.record("expected a failure, got \(alice.phase)")
            return
        }
        #expect(message.hasPrefix("The payee's wallet refused the payment: "))
        #expect(message.contains(WalletError.requestAlreadyPaid.description))
        #expect(!canTryAgain, "the payee would refuse the same bytes again")
        await alice.tryAgain()
        #expect(alice.phase == .failed(message: message, canTryAgain: false), "Try again does nothing when not offered")
    }

    @Test func aRequestInAnotherCurrencyIsRefusedBeforeSigning() async throws {
        let pair = try WalletPair(funds: 10_000)
        let usd = Currency("USD")!
        let request = try PaymentRequest(
            payee: pair.payee.publicKey, currency: usd, amount: 500, nonce: Nonce(uncheckedBytes: Array(repeating: 9, count: 16)),
            expiresAt: Timestamp(Date().timeIntervalSince1970) + 600, payeeName: "Bob", hints: Self.hints,
            sessionKey: pair.payee.publicKey)
        // A screen that believes it holds dollars: the checklist passes, the wallet knows better.
        let alice = SendModel(currency: usd, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        alice.services = SendServices(
            wallet: pair.payer, dialer: SimulatedNetwork(.init(mtu: 185)), sessionOptions: WalletPair.sessionOptions)
        alice.useRequest(request)
        alice.submit()
        await alice.send()
        guard case .failed(let message, let canTryAgain) = alice.phase else {
            Issue.record("expected a failure, got \(alice.phase)")
            return
        }
        #expect(message.contains("another wallet's currency"))
        #expect(message.contains("Nothing was paid"))
        #expect(!canTryAgain)
        #expect(try pair.payer.balance().spendable == 10_000)
    }

    @Test func aSignedOpenAmountIsLockedAndAnotherRequestStartsAfresh() async throws {
        let pair = try WalletPair(funds: 10_000)
        let bob = try await Self.bobsRequest(pair, amount: "")  // open amount
        let silent = SimulatedNetwork(.init(mtu: 185))
        guard case .send(let request) = try Self.scan(bob.requestFrames) else { throw ScanError.nothingEntered }
        let alice = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: Self.locale)
        alice.services = SendServices(
            wallet: pair.payer, dialer: silent,
            sessionOptions: SessionOptions(retransmitAfter: .milliseconds(30), timeout: .milliseconds(200)))
        alice.useRequest(request)
        alice.amountText = "5"
        alice.submit()
        await alice.send()
        silent.close()
        guard case .failed(_, true) = alice.phase else {
            Issue.record("expected a failure to retry, got \(alice.phase)")
            return
        }
        #expect(alice.isAmountLocked, "Try again resends the signed 5.00")
        alice.amountText = "9"
        #expect(alice.amount.minorUnits == 500)
        #expect(alice.signedPayment?.amount == 500)

        let other = try await Self.bobsRequest(pair, amount: "2")
        guard case .send(let second) = try Self.scan(other.requestFrames) else { throw ScanError.nothingEntered }
        alice.useRequest(second)
        #expect(alice.signedPayment == nil && alice.phase == .editing, "a new recipient, a new payment")
        #expect(alice.amount.minorUnits == 200)
    }
}
