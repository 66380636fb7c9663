import Foundation
import IssuerTesting
import NearbySession
import NearbySessionTesting
import OfflineNotes
import QRPayload
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// The app's engine end to end: whole app stacks (`AppStack`: AppModel, the
/// screen models, real wallets, real sessions) for Alice, Bob and sometimes Carol, against a
/// real `wallet-server` on loopback — SQLite always, PostgreSQL too when OW_TEST_POSTGRES_URL
/// is set — one server per test. Nearby payments go over the simulated link at MTU 185.
///
/// Home screens are never refreshed by hand: every balance asserted on `home` arrived through
/// observation (the wallet's snapshots, the app's syncs). Waits are on observed state, bounded
/// by liveness limits (`untilTrue`), never fixed sleeps.
@MainActor
@Suite("App end to end")
struct AppEndToEndTests {
    static let eur = AppStack.eur

    /// One server on `backend`, and Alice's and Bob's phones onboarded on it.
    static func aliceAndBob(
        _ backend: Backend, _ body: (LoopbackIssuer, AppStack, AppStack) async throws -> Void
    ) async throws {
        try await LoopbackIssuer.with(backend) { h in
            try await body(h, try await AppStack("alice", on: h), try await AppStack("bob", on: h))
        }
    }

    // MARK: The happy paths

    /// Onboarding → funding → Buy → Bob's request as several QR frames → Alice's camera reads
    /// them out of order ("k of n") → Send prefilled → confirm → paid over a link cut after two
    /// frames that the session resumes → Bob's receipt → both homes follow by observation alone;
    /// then Bob's phone comes online and one sync settles the payment on his home.
    @Test(arguments: Backend.available)
    func scanPayNearbyOverACutLinkAndBothHomesFollow(_ backend: Backend) async throws {
        try await LoopbackIssuer.with(backend) { h in
            let alice = try await AppStack("alice", on: h, passphrase: "alice keeps a long passphrase")
            let bob = try await AppStack("bob", on: h)
            try await alice.fund(50_000)
            // Alice's phone is online: the one sync on return shows the deposit on her home.
            alice.connectivity.set(.online)
            #expect(await untilTrue { alice.app.syncCount == 1 && alice.app.syncState == .idle && alice.home.settled == 50_000 })
            #expect(alice.home.total == 50_000)

            let buy = try await alice.buy("200")
            guard case .bought(let bought) = buy.phase else {
                Issue.record("expected a purchase, got \(buy.phase)")
                return
            }
            #expect(bought.amount == 20_000 && bought.offlineSpendable == 20_000 && bought.settled == 30_000)
            #expect(await untilTrue { alice.home.offlineSpendable == 20_000 && alice.home.recent.first?.direction == .purchased })
            #expect(
                await untilTrue { alice.home.settled == 30_000 },
                "home's settled follows the purchase (was \(alice.home.settled ?? -1))")
            #expect(alice.home.total == 50_000, "bought notes are not counted twice")

            let request = try await bob.receive("12.50")
            #expect(request.isAnimated && request.requestFrames.count >= 3, "several frames: \(request.requestFrames.count)")
            let link = SimulatedNetwork(.init(mtu: 185, cutAfterFrames: [0: 2]))
            let send = try alice.scanRequest(request.requestFrames, dialer: link)
            #expect(send.amount.text == "12.50" && send.isAmountLocked, "the request's amount, locked")
            #expect(send.method == .bluetooth, "the request offers a nearby session")
            #expect(send.focus.focused == .description, "the amount is set: on to the description")
            send.note = "lunch"
            send.focusNext()  // Return on the last field: the confirmation
            guard case .confirming(let summary) = send.phase else {
                Issue.record("expected the confirmation, got \(send.phase); missing \(send.missing)")
                return
            }
            #expect(summary.recipientName == "bob" && summary.amount == 1_250 && summary.remaining == 18_750)
            #expect(summary.description == "lunch" && summary.method == .bluetooth)

            let phases = Observed { send.phase }
            let listening = Observed { request.listening }
            async let listened: Void = request.listen(on: link)
            await send.send()
            await listened

            #expect(send.phase == .paid(amount: 1_250))
            #expect(await untilTrue { phases.values.last == .paid(amount: 1_250) })
            let steps = phases.values.map(\.step)
            #expect(steps == steps.sorted(), "the screen's phases never went back: \(phases.values)")
            #expect(phases.values.contains(.signing), "\(phases.values)")
            #expect(listening.values.first == .idle && listening.values.last == .receiptSent, "\(listening.values)")
            #expect(link.counters.links >= 2, "the link was cut mid-payment and the session went on over another")
            #expect(request.phase == .received && request.listening == .receiptSent)
            let incoming = try #require(request.incoming)
            #expect(incoming.amount == 1_250 && incoming.method == .bluetooth && incoming.paymentID == send.signedPayment?.id)
            #expect(incoming.payerKeyID == alice.wallet.publicKey.keyID)

            // Both home screens, by observation alone.
            #expect(await untilTrue { alice.home.offlineSpendable == 18_750 && alice.home.recent.first?.direction == .sent })
            #expect(await untilTrue { bob.home.unsettled == 1_250 && bob.home.offlineTotal == 1_250 })
            #expect(bob.home.recent.first?.direction == .received && bob.home.recent.first?.amount == 1_250)
            #expect(await untilTrue { alice.home.reserved == 0 }, "the receipt released the reservation")
            #expect(alice.app.syncCount == 1 && bob.app.syncCount == 0, "no sync ran since: the snapshots did it")

            // Bob's phone comes online: one sync redeems the payment, his home shows it settled.
            bob.connectivity.set(.online)
            #expect(await untilTrue { bob.app.syncCount == 1 && bob.app.syncState == .idle && bob.app.lastReport != nil })
            #expect(await untilTrue { bob.home.unsettled == 0 && bob.home.settled == 1_250 && bob.home.connectivity == .online })
            #expect(try await bob.settledAtIssuer() == 1_250)
            #expect(bob.app.syncCount == 1)
        }
    }

    /// Paying by QR only: the payment shown as frames to Bob's camera, Bob's receipt shown as
    /// frames back to Alice's. No link at all.
    @Test(arguments: Backend.available)
    func theQROnlyPathPaysWithFramesBothWays(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.stock(50)

            let request = try await bob.receive("30")
            let (send, bundle) = try await alice.payByQR(request, to: bob)
            #expect(
                await untilTrue { alice.home.reserved == 3_000 && alice.home.offlineSpendable == 2_000 },
                "reserved until the receipt")
            await request.receiveScanned(bundle)
            #expect(request.phase == .received && request.scanError == nil)
            #expect(request.incoming?.amount == 3_000 && request.incoming?.method == .qr)
            #expect(!request.receiptFrames.isEmpty)

            guard case .confirm(let receipt) = try alice.scan(request.receiptFrames) else {
                Issue.record("Bob's frames are not a receipt")
                return
            }
            await send.acceptReceipt(receipt)
            #expect(send.phase == .paid(amount: 3_000) && send.receiptError == nil)

            #expect(await untilTrue { alice.home.reserved == 0 && alice.home.offlineSpendable == 2_000 })
            #expect(await untilTrue { bob.home.unsettled == 3_000 && bob.home.recent.first?.method == "qr" })
        }
    }

    /// Online send: a typed account email, paid from the settled balance through the issuer.
    @Test(arguments: Backend.available)
    func anOnlineSendMovesSettledMoney(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.fund(5_000)
            alice.connectivity.set(.online)
            #expect(await untilTrue { alice.app.syncCount == 1 && alice.app.syncState == .idle && alice.home.settled == 5_000 })

            let send = try alice.sendScreen()
            send.recipientText = bob.email
            #expect(send.method == .online, "a typed account is paid online")
            send.tapQuickAmount(25)
            #expect(send.amount.text == "25.00" && send.focus.focused == .description)
            send.submit()
            #expect(send.confirmation?.remaining == 2_500 && send.sendButtonTitle == "Via Internet")
            await send.send()
            #expect(send.phase == .paid(amount: 2_500))

            #expect(try await alice.settledAtIssuer() == 2_500)
            #expect(try await bob.settledAtIssuer() == 2_500)
            #expect(await untilTrue { alice.home.recent.first?.direction == .sent && alice.home.recent.first?.online == true })
            #expect(
                await untilTrue { alice.home.settled == 2_500 },
                "home's settled follows the transfer (was \(alice.home.settled ?? -1))")
            #expect(alice.home.offlineSpendable == 0)

            // Bob's phone comes online: his one sync brings the transfer to his home.
            bob.connectivity.set(.online)
            #expect(await untilTrue { bob.app.syncCount == 1 && bob.app.syncState == .idle && bob.home.settled == 2_500 })
            #expect(await untilTrue { bob.home.recent.first?.direction == .received && bob.home.recent.first?.online == true })
        }
    }

    /// The biometric lock: turned on in Settings (Face ID confirms), locked on going to the
    /// background; a face not recognized and a wrong passphrase leave it locked with their
    /// messages, the next face opens it; a launch locks again and the passphrase opens it.
    @Test func aLockAndUnlock() async throws {
        try await LoopbackIssuer.with { h in
            let passphrase = "alice keeps a long passphrase"
            let alice = try await AppStack("alice", on: h, passphrase: passphrase, biometrics: [true, false, true])
            let settings = try #require(alice.app.settingsModel, "the app hands out the Settings tab")
            let lock = alice.app.lock
            #expect(!lock.isEnabled && lock.hasFallback)
            alice.app.enteredBackground()
            #expect(!lock.isLocked, "off: going to the background does not lock")

            #expect(await settings.setBiometricLock(true))
            #expect(lock.isEnabled && settings.biometricLock)
            alice.app.enteredBackground()
            #expect(lock.state == .locked)

            await lock.unlock()
            #expect(lock.state == .locked && lock.message == .notRecognized)
            await lock.unlock(passphrase: "not the passphrase")
            #expect(lock.state == .locked && lock.message == .wrongPassphrase)
            await lock.unlock()
            #expect(lock.state == .unlocked && lock.message == nil)
            #expect(alice.gate.reasons.count == 3 && alice.gate.reasons.last == LockModel.reason)

            alice.app.launched()
            #expect(lock.isLocked, "a launch locks too")
            await lock.unlock(passphrase: passphrase)
            #expect(lock.state == .unlocked && lock.message == nil)
            #expect(alice.home.offlineTotal == 0 && alice.app.syncCount == 0, "locking is the screen's: nothing else moved")
        }
    }

    /// Connectivity returning (with a flap) runs exactly one sync, which includes exactly one
    /// auto-recharge purchase — one at the issuer too — and home shows the result.
    @Test(arguments: Backend.available)
    func connectivityReturningSyncsOnceAndRechargesOnce(_ backend: Backend) async throws {
        try await LoopbackIssuer.with(backend) { h in
            let alice = try await AppStack("alice", on: h)
            try await alice.stock(50, funds: 50_000)
            #expect(try await alice.purchasesAtIssuer() == 1)

            let settings = try #require(alice.app.settingsModel, "the app hands out the Settings tab")
            settings.autoRechargeOn = true
            settings.threshold = 100
            settings.target = 300
            #expect(settings.saveAutoRecharge(), "\(settings.error?.description ?? "")")
            #expect(settings.preview == .willRechargeNow(to: 30_000))

            alice.connectivity.set(.online)
            alice.connectivity.set(.offline)
            alice.connectivity.set(.online)
            #expect(await untilTrue { alice.app.syncCount >= 1 && alice.app.syncState == .idle && alice.app.lastReport != nil })
            #expect(await untilTrue { alice.app.connectivity == .online && alice.home.connectivity == .online })
            #expect(alice.app.syncCount == 1, "the flap joined the one sync")
            let report = try #require(alice.app.lastReport)
            #expect(report.recharged == 25_000, "topped up to the target once")
            #expect(try await alice.purchasesAtIssuer() == 2, "one purchase at the issuer for the recharge")
            #expect(try await alice.settledAtIssuer() == 20_000)

            #expect(await untilTrue { alice.home.offlineSpendable == 30_000 && alice.home.settled == 20_000 })
            #expect(alice.home.lastSync == report.syncedAt, "home's 'Updated' is this sync's")
            #expect(alice.home.total == 50_000)
        }
    }

    // MARK: Every error state a person can reach

    /// Buying with no network: the offline error, nothing bought, nothing charged; the
    /// purchase is remembered and the next sync (network back) finishes it once.
    @Test(arguments: Backend.available)
    func offlineDuringPurchase(_ backend: Backend) async throws {
        try await LoopbackIssuer.with(backend) { h in
            let alice = try await AppStack("alice", on: h)
            try await alice.fund(10_000)
            alice.network.isCut = true
            let buy = try await alice.buy("20")
            #expect(buy.phase == .failed(.offline))
            #expect(BuyModel.BuyError.offline.description.contains("cannot be reached"))
            #expect(alice.home.connectivity == .offline, "the badge says offline")
            #expect(alice.home.offlineSpendable == 0 && alice.home.offlineTotal == 0)
            #expect(try await alice.settledAtIssuer() == 10_000)
            #expect(try await alice.purchasesAtIssuer() == 0)
            buy.edit()
            #expect(buy.phase == .editing && buy.amount.text == "20", "the amount is kept for the retry")
            #expect(try alice.store.loadFlowState().pendingPurchase?.amount == 2_000, "remembered: it may have been charged")

            // The network returns: one sync finishes the remembered purchase, charged once.
            alice.network.isCut = false
            alice.connectivity.set(.online)
            #expect(await untilTrue { alice.app.syncCount == 1 && alice.app.syncState == .idle && alice.app.lastReport != nil })
            #expect(try await alice.purchasesAtIssuer() == 1)
            #expect(await untilTrue { alice.home.offlineSpendable == 2_000 && alice.home.settled == 8_000 })
        }
    }

    /// Paying more than the wallet holds offline: the checklist says how much is missing and
    /// Send stays off; a screen with stale numbers is stopped by the wallet, nothing signed.
    @Test(arguments: Backend.available)
    func insufficientFunds(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.stock(10)

            let request = try await bob.receive("25")
            let send = try alice.scanRequest(request.requestFrames, dialer: SimulatedNetwork(.init(mtu: 185)))
            #expect(send.missing == [.funds(shortBy: 1_500, currency: Self.eur)])
            #expect(send.missing.first?.description == "Insufficient balance: 15.00 EUR more is needed.")
            #expect(send.balanceLine == .insufficient(shortBy: 1_500) && !send.canSend)
            send.submit()
            #expect(send.phase == .editing && send.confirmation == nil)

            // The same request on a screen whose numbers are stale (opened before a payment).
            let stale = SendModel(currency: Self.eur, offlineSpendable: 10_000, settled: 0, locale: AppStack.locale)
            stale.services = SendServices(
                wallet: alice.wallet.wallet, session: alice.session, dialer: SimulatedNetwork(.init(mtu: 185)))
            guard case .send(let scanned) = try alice.scan(request.requestFrames) else {
                Issue.record("the request's frames did not route to Send")
                return
            }
            stale.useRequest(scanned)
            stale.submit()
            await stale.send()
            guard case .failed(let message, let canTryAgain) = stale.phase else {
                Issue.record("expected a failure, got \(stale.phase)")
                return
            }
            #expect(message.hasPrefix("Insufficient balance") && message.contains("Nothing was paid") && !canTryAgain)
            #expect(stale.signedPayment == nil)
            #expect(try await alice.wallet.balance().spendable == 1_000)
            #expect(alice.home.offlineSpendable == 1_000 && alice.home.reserved == 0)
            #expect(bob.home.offlineTotal == 0)
        }
    }

    /// Over the risk budget: buying past what the wallet may hold offline is refused with the
    /// limit, and a payment that would take a payee past its limit is refused by the payee's
    /// wallet; neither balance moves.
    @Test(arguments: Backend.available)
    func overTheRiskBudget(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.fund(200_000)
            #expect(alice.home.riskBudget == 100_000 && alice.home.riskBudgetLeft == 100_000)

            let first = try await alice.buy("990")
            guard case .bought = first.phase else {
                Issue.record("expected a purchase, got \(first.phase)")
                return
            }
            #expect(await untilTrue { alice.home.riskBudgetLeft == 1_000 && alice.home.offlineSpendable == 99_000 })

            let over = try await alice.buy("20")
            #expect(over.phase == .failed(.aboveHoldingLimit(limit: 100_000, currency: Self.eur)))
            #expect(over.riskBudgetLeft == 1_000 && !over.canBuy)
            guard case .failed(let error) = over.phase else {
                Issue.record("expected a failure, got \(over.phase)")
                return
            }
            #expect(error.description.contains("at most 1000.00 EUR offline"))
            #expect(try await alice.settledAtIssuer() == 101_000)
            #expect(try await alice.purchasesAtIssuer() == 1)
            #expect(alice.home.offlineSpendable == 99_000)

            // Bob pays Alice 20.00 by QR: her wallet would hold 1,010.00, over its limit.
            try await bob.stock(50)
            let request = try await alice.receive("20")
            let (_, bundle) = try await bob.payByQR(request, to: alice)
            await request.receiveScanned(bundle)
            #expect(request.phase == .showingRequest && request.incoming == nil && request.receiptFrames.isEmpty)
            #expect(request.scanError?.contains("above the limit 1000.00 EUR") == true, "\(request.scanError ?? "")")
            #expect(try await alice.wallet.balance().spendable == 99_000)
            #expect(alice.home.offlineTotal == 99_000 && alice.home.unsettled == 0)
            #expect(bob.home.offlineTotal == 5_000, "Bob's payment waits for a receipt that will not come: reserved, not lost")
        }
    }

    /// An expired request: Send says so and stays off; a screen whose clock is behind lets the
    /// person confirm, and the wallet refuses before signing.
    @Test(arguments: Backend.available)
    func anExpiredRequest(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.stock(20)

            let request = try await bob.receive("5", expiresIn: 0)
            let send = try alice.scanRequest(request.requestFrames, dialer: SimulatedNetwork(.init(mtu: 185)))
            #expect(send.missing == [.freshRequest])
            #expect(send.missing.first?.description == "The request has expired. Ask the payee to show a new one.")
            send.submit()
            #expect(send.phase == .editing && !send.canSend)

            let behind = TestClock(Timestamp(Date().timeIntervalSince1970) - 3_600)
            let lagging = try alice.scanRequest(request.requestFrames, dialer: SimulatedNetwork(.init(mtu: 185)), clock: behind)
            lagging.submit()
            await lagging.send()
            guard case .failed(let message, let canTryAgain) = lagging.phase else {
                Issue.record("expected a failure, got \(lagging.phase)")
                return
            }
            #expect(message.contains("expired") && message.contains("new one") && !canTryAgain)
            #expect(lagging.signedPayment == nil)
            #expect(try await alice.wallet.balance().spendable == 2_000)
            #expect(alice.home.offlineSpendable == 2_000 && alice.home.reserved == 0 && bob.home.offlineTotal == 0)
        }
    }

    /// A payment made for Carol's request, shown to Bob's camera: Bob's wallet refuses it and
    /// keeps showing his own request; Carol's wallet accepts it, and Alice's payment completes.
    @Test(arguments: Backend.available)
    func aPaymentForSomeoneElse(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            let carol = try await AppStack("carol", on: h)
            try await alice.stock(20)

            let bobs = try await bob.receive("4")
            let carols = try await carol.receive("4")
            let (send, bundle) = try await alice.payByQR(carols, to: bob)

            await bobs.receiveScanned(bundle)
            #expect(bobs.phase == .showingRequest && bobs.incoming == nil && bobs.receiptFrames.isEmpty)
            #expect(bobs.scanError?.hasPrefix("This payment was not accepted") == true, "\(bobs.scanError ?? "")")
            #expect(bob.home.offlineTotal == 0 && bob.home.unsettled == 0)
            #expect(try await bob.wallet.balance().total == 0)
            #expect(alice.home.total == 2_000, "Alice's money is reserved for Carol, not gone")

            await carols.receiveScanned(bundle)
            #expect(carols.phase == .received && carols.incoming?.amount == 400)
            guard case .confirm(let receipt) = try alice.scan(carols.receiptFrames) else {
                Issue.record("the receipt's frames did not route to Confirm")
                return
            }
            await send.acceptReceipt(receipt)
            #expect(send.phase == .paid(amount: 400))
            #expect(
                await untilTrue {
                    carol.home.unsettled == 400 && alice.home.offlineSpendable == 1_600 && alice.home.reserved == 0
                })
        }
    }

    /// A double spend caught: Alice's tampered phone signs the note she paid Bob with to Bob
    /// again; Bob's wallet refuses it and keeps the proof, his balance does not move, and when
    /// his phone comes online the one sync reports it and raises the fraud alert (the value at
    /// stake, the case) once. Alice's account is frozen: her next purchase is refused.
    @Test(arguments: Backend.available)
    func aDoubleSpendIsCaughtAndAlerted(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.stock(10)

            let first = try await bob.receive("10")
            let (_, honest) = try await alice.payByQR(first, to: bob)
            await first.receiveScanned(honest)
            #expect(first.phase == .received)
            #expect(await untilTrue { bob.home.unsettled == 1_000 })

            // The same note, signed again by the tampered phone, shown as QR to Bob's next request.
            let second = try await bob.receive("10")
            let nonce = try #require(second.request?.nonce)
            let cheat = try signedAgain(honest.encoded, by: alice.wallet.wallet, to: bob.wallet.publicKey, nonce: nonce)
            guard case .receive(let bundle) = try bob.scan(try QRFrames.encode(cheat.encoded, chunkSize: 200)) else {
                Issue.record("the payment's frames did not route to Receive")
                return
            }
            await second.receiveScanned(bundle)
            #expect(second.phase == .showingRequest && second.incoming == nil)
            #expect(
                second.scanError
                    == "This payment was not accepted: \(WalletError.doubleSpendDetected(try #require(try bob.wallet.wallet.fraudProofs().first)).description)"
            )
            #expect(try bob.wallet.wallet.fraudProofs().count == 1, "the proof is kept for the issuer")
            #expect(bob.home.unsettled == 1_000 && bob.home.offlineTotal == 1_000, "the balance did not move")
            #expect(bob.app.alerts.isEmpty)

            bob.connectivity.set(.online)
            #expect(await untilTrue { bob.app.syncCount == 1 && bob.app.syncState == .idle && bob.app.lastReport != nil })
            let report = try #require(bob.app.lastReport)
            #expect(report.fraudCases.count == 1, "the issuer opened a case from Bob's proof")
            let alert = WalletAlert.fraud(amount: 1_000, currency: Self.eur, caseReference: "case \(report.fraudCases[0])")
            #expect(bob.app.alerts == [alert], "\(bob.app.alerts)")
            #expect(bob.notifier.posted == [alert], "\(bob.notifier.posted)")
            #expect(await untilTrue { bob.home.settled == 1_000 && bob.home.unsettled == 0 }, "the honest payment settled once")

            // The cheater's account is frozen: her next purchase says so, and nothing moves.
            try await alice.fund(500)
            let frozen = try await alice.buy("5")
            #expect(frozen.phase == .failed(.accountFrozen))
            #expect(BuyModel.BuyError.accountFrozen.description.contains("Contact support"))
            #expect(try await alice.settledAtIssuer() == 500)
            #expect(alice.home.offlineSpendable == 0, "nothing bought")
            #expect(try await alice.purchasesAtIssuer() == 1)
        }
    }

    /// A session that fails for good (the link is cut mid-payment and every new link dies at
    /// once): the failure says the payment is signed and kept; Try again, over a link that
    /// works, resends exactly the same bytes and the payment completes once.
    @Test(arguments: Backend.available)
    func aSessionThatFailsThenTryAgain(_ backend: Backend) async throws {
        try await Self.aliceAndBob(backend) { h, alice, bob in
            try await alice.stock(20)

            let request = try await bob.receive("8")
            // Link 0 dies after two frames; every reconnect (at most 8) dies at its first frame.
            var cuts = [0: 2]
            for link in 1...20 { cuts[link] = 0 }
            let dead = SimulatedNetwork(.init(mtu: 185, cutAfterFrames: cuts))
            let send = try alice.scanRequest(request.requestFrames, dialer: dead)
            send.submit()
            async let listenedOnDead: Void = request.listen(on: dead)
            await send.send()
            guard case .failed(let message, let canTryAgain) = send.phase else {
                Issue.record("expected a failure, got \(send.phase)")
                request.stopListening()
                await listenedOnDead
                return
            }
            #expect(canTryAgain && message.contains("signed and kept"))
            let signed = try #require(send.signedPayment)
            request.stopListening()  // Bob's screen: the old link is gone
            await listenedOnDead
            #expect(request.phase == .showingRequest && request.incoming == nil)
            #expect(await untilTrue { alice.home.reserved == 800 && alice.home.offlineSpendable == 1_200 })
            #expect(bob.home.offlineTotal == 0)

            let working = SimulatedNetwork(.init(mtu: 185))
            send.services?.dialer = working
            async let listened: Void = request.listen(on: working)
            await send.tryAgain()
            await listened
            #expect(send.phase == .paid(amount: 800))
            #expect(send.signedPayment?.bundle == signed.bundle, "the same signed bytes, not a second payment")
            #expect(request.incoming?.paymentID == signed.id)
            #expect(await untilTrue { alice.home.offlineSpendable == 1_200 && alice.home.reserved == 0 })
            #expect(await untilTrue { bob.home.unsettled == 800 })
            #expect(try await alice.wallet.history().filter { $0.direction == .sent }.count == 1, "paid once")
        }
    }
}
