import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The words and numbers the SwiftUI views draw (ScreenText.swift, QRCodeTabModel): the views
/// only bind to these, so what a person reads is checked here.
@MainActor
@Suite struct ScreenTextTests {
    let fixture: MessageFixture
    let clock = TestClock(MessageFixture.now)
    init() throws { fixture = try MessageFixture() }

    @Test func moneyIsWrittenInMinorUnitDigitsAndSpokenWithTheCurrencyName() throws {
        #expect(MoneyText.text(1_250, currency: fixture.eur) == "12.50 EUR")
        #expect(MoneyText.text(signed: -300, currency: fixture.eur) == "−3.00 EUR")
        #expect(MoneyText.text(signed: 0, currency: fixture.eur) == "0.00 EUR")
        #expect(MoneyText.text(500, currency: try #require(Currency("JPY"))) == "500 JPY")
        #expect(MoneyText.spoken(1_250, currency: fixture.eur) == "12.50 Euro")
        #expect(MoneyText.percent(permille: 455) == "46%")
        #expect(MoneyText.percent(permille: 454) == "45%")
        #expect(MoneyText.percent(permille: 1000) == "100%" && MoneyText.percent(permille: -3) == "0%")
    }

    @Test func sendSaysWhatIsAvailableWhatRemainsAndWhereThePaymentIs() throws {
        let send = SendModel(
            currency: fixture.eur, offlineSpendable: 10_000, settled: 3_000, clock: clock, locale: Locale(identifier: "en_US"))
        #expect(send.availableText == "100.00 EUR")
        #expect(send.balanceLineText == "Remaining: 100.00 EUR" && !send.isInsufficient && send.usage == 0)
        #expect(send.requestText == nil && send.phaseText == nil && send.sendingFraction == nil)
        send.amountText = "25"
        #expect(send.balanceLineText == "Remaining: 75.00 EUR" && send.usage == 0.25)
        send.amountText = "150"
        #expect(send.balanceLineText == "Insufficient balance: 50.00 EUR short" && send.isInsufficient && send.usage == 1)

        send.useRequest(try fixture.request(1_250))
        #expect(send.requestText == "Request from Bob's Café: 12.50 EUR")
        send.useRequest(try fixture.request(0, name: ""))
        #expect(send.requestText == "Request from a scanned request: any amount")
        send.amountText = "12"
        send.submit()
        let summary = try #require(send.confirmation)
        #expect(summary.amountText == "12.00 EUR" && summary.remainingText == "88.00 EUR")
        #expect(send.phaseText == nil, "confirming has no progress line")
        #expect(send.requestToPay?.payeeName == "" && !send.awaitsScannedReceipt && !send.canTryAgain)
        #expect(SendMethod.allCases.map(\.title) == ["Offline QR", "Bluetooth", "Online"])
        send.clearRequest()
        #expect(send.requestToPay == nil)
    }

    @Test func theQRCodeTabShowsTheLastScannedRequestWithItsAmountAndAge() throws {
        let tab = QRCodeTabModel(clock: clock)
        #expect(tab.lastRequest == nil && tab.amountText == nil && tab.ageText == nil && tab.payeeText == nil && !tab.isExpired)
        tab.scanned(try fixture.request(2_500))
        #expect(tab.payeeText == "Bob's Café" && tab.amountText == "25.00 EUR" && tab.ageText == "Scanned just now")
        clock.advance(300)
        #expect(tab.ageText == "Scanned 5 min ago" && !tab.isExpired)
        clock.advance(300)
        #expect(tab.isExpired, "the fixture's request lives 600 s")
        tab.scanned(try fixture.request(0, name: ""))
        #expect(tab.payeeText == "Scanned request" && tab.amountText == "Any amount" && tab.ageText == "Scanned just now")
        tab.clear()
        #expect(tab.lastRequest == nil && tab.ageText == nil)
    }

    @Test func nearbyDevicesSayWhatTheSearchFound() {
        let browser = InMemoryNearbyBrowser()
        let nearby = NearbyDevicesModel(browser: browser, clock: clock, timeout: 5)
        #expect(nearby.stateText == "Not searching." && nearby.pickText == nil && !nearby.isPicking)
        #expect(nearby.canSearchAgain && !nearby.isSearching)
        nearby.start()
        defer { nearby.stop() }
        #expect(nearby.stateText == "Searching for nearby wallets…")
        #expect(!nearby.canSearchAgain && nearby.isSearching)
    }

    @Test func homeBuyAndReceiveWriteTheirNumbersFromTheWallet() async throws {
        try await LoopbackIssuer.with { @MainActor h in
            let (bob, _) = try await h.loggedIn("texts", funds: 20_000)
            let home = HomeModel(session: bob, connectivity: ManualConnectivity(.online), clock: TestClock(1_800_000_000))
            #expect(home.totalText == "—" && home.settledText == "Not read yet" && home.connectivityText == "Checking…")
            #expect(home.refreshText == nil && home.recentRows.isEmpty)
            home.appear()
            defer { home.disappear() }
            #expect(await untilTrue { home.snapshot != nil && home.settled == 20_000 && home.connectivity == .online })
            #expect(home.totalText == "200.00 EUR" && home.settledText == "200.00 EUR" && home.offlineText == "0.00 EUR")
            #expect(home.offlineShareText == "0%" && home.settledShareText == "100%" && home.connectivityText == "Online")

            let buy = BuyModel(session: bob, balance: try #require(home.snapshot).balance, locale: Locale(identifier: "en_US"))
            #expect(buy.riskBudgetLeftText == "You can buy up to 1000.00 EUR now.")
            #expect(buy.holdingLimitText == "The wallet may hold at most 1000.00 EUR offline.")
            #expect(buy.boughtText == nil && buy.failureText == nil)
            buy.amount.text = "50"
            await buy.buy()
            #expect(buy.boughtText == "Bought 50.00 EUR. Offline: 50.00 EUR. Settled: 150.00 EUR.")
            #expect(await untilTrue { home.offlineTotal == 5_000 && home.settled == 15_000 })
            #expect(home.offlineShareText == "25%" && home.settledShareText == "75%" && home.offlineFraction == 0.25)
            #expect(await untilTrue { home.recentRows.first?.amountText == "+50.00 EUR" })

            let receive = ReceiveModel(wallet: bob.wallet, currency: fixture.eur, hints: [], frameBytes: 40)
            #expect(receive.requestAmountText == nil && receive.requestExpiry == nil && receive.listeningText == nil)
            receive.amount.text = "12.5"
            await receive.generate()
            #expect(receive.requestAmountText == "12.50 EUR")
            #expect(receive.requestExpiry.map { $0.timeIntervalSinceNow > 0 } == true)
            #expect(receive.isAnimated && receive.frameText == "Part 1 of \(receive.requestFrames.count)")
            receive.advanceFrame()
            #expect(receive.frameText == "Part 2 of \(receive.requestFrames.count)")
            #expect(receive.incomingText == nil && receive.payerText == nil)
            #expect(receive.shareText == receive.requestFrames.joined(separator: "\n"))
            let pasted = ScanAssembler()
            guard case .complete(.send(let request)) = pasted.enter(try #require(receive.shareText)) else {
                Issue.record("the shared text does not read back as the request: \(String(describing: pasted.error))")
                return
            }
            #expect(request == receive.request)
        }
    }
}

/// The root's routing helpers: a scanned request opens Send prefilled; the appearance follows
/// the saved setting.
@MainActor
@Suite struct RootRoutingTests {
    @Test func aScannedRequestOpensSendPrefilledAndTheAppearanceIsTheSavedOne() async throws {
        let fixture = try MessageFixture()
        try await LoopbackIssuer.with { @MainActor h in
            let (session, _) = try await h.loggedIn("routing", funds: 0)
            let settings = InMemorySettingsStore()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings))
            #expect(app.appearance == .system)
            try AppearanceSetting.dark.save(to: settings)
            #expect(app.appearance == .dark, "read from the store before Settings exists")
            #expect(app.makeSend(paying: try fixture.request(1_250)) == nil, "nothing before start")
            #expect(!app.isWalletOpen)
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            #expect(app.isWalletOpen)
            let send = try #require(app.makeSend(paying: try fixture.request(1_250), locale: Locale(identifier: "en_US")))
            #expect(send.requestToPay?.amount == 1_250 && send.amountText == "12.50" && send.isAmountLocked)
            #expect(send.method == .qr, "a request without a nearby hint is paid by QR")
            let screen = try #require(app.settingsModel)
            screen.setAppearance(.light)
            #expect(app.appearance == .light, "the Settings screen's choice shows at once")
            let tab = app.makeQRCodeTab()
            #expect(tab.lastRequest == nil)
        }
    }
}
