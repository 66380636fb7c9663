import Foundation
import NearbySessionTesting
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The screen models the app model hands out: one wallet, one session, so Settings drives the
/// next sync, a purchase shows on home by observation, and a logout takes them all away.
@MainActor
@Suite struct AppScreensTests {
    static let locale = Locale(identifier: "en_US")

    @Test func theScreensShareOneSessionSoSettingsDriveTheNextSyncAndAPurchaseShowsOnHome() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("screens", funds: 20_000)
            let settings = InMemorySettingsStore()
            let browser = InMemoryNearbyBrowser()
            let app = AppModel(
                settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
                notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings), nearbyBrowser: browser)
            #expect(app.makeBuy() == nil && app.makeSend() == nil && app.makeReceive(hints: []) == nil, "nothing before start")
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let home = try #require(app.home)
            home.appear()
            defer { home.disappear() }
            #expect(await untilTrue { home.snapshot != nil && home.settled == 20_000 })

            // Settings writes the rule the app's next sync reads: 0 spendable < 20 → buy up to 50.
            let screen = try #require(app.settingsModel)
            #expect(screen.home === home, "Settings shows home's numbers")
            screen.autoRechargeOn = true
            screen.threshold = 20
            screen.target = 50
            #expect(screen.saveAutoRecharge())
            let report = try #require(await app.sync())
            #expect(report.recharged == 5_000)
            #expect(await untilTrue { home.offlineSpendable == 5_000 && home.settled == 15_000 })

            // A purchase on the Buy sheet shows on home through observation alone.
            let buy = try #require(app.makeBuy(locale: Self.locale))
            #expect(buy.session === session && buy.riskBudgetLeft == 95_000)
            buy.amount.text = "12.00"
            await buy.buy()
            guard case .bought = buy.phase else {
                Issue.record("expected a purchase, got \(buy.phase)")
                return
            }
            #expect(await untilTrue { home.offlineSpendable == 6_200 })
            let history = try #require(app.history)
            history.appear()
            defer { history.disappear() }
            #expect(
                await untilTrue { history.entries.contains { $0.direction == .purchased && $0.amount == 1_200 } },
                "the purchase is in the history: \(history.entries.map { ($0.direction, $0.amount) })")

            // Send and Receive are on this wallet, with home's balances; nearby devices on the app's browser.
            let send = try #require(app.makeSend(locale: Self.locale))
            #expect(
                send.offlineSpendable == 6_200 && send.settled == UInt64(home.settled ?? -1) && send.services?.session === session
            )
            #expect(send.services?.wallet === session.wallet)
            // Money bought while the Send sheet is open counts there too (home's numbers, followed).
            let more = try #require(app.makeBuy(locale: Self.locale))
            more.amount.text = "3.00"
            await more.buy()
            #expect(
                await untilTrue { send.offlineSpendable == 6_500 && send.amount.maximum == 6_500 },
                "the open Send sheet follows home: \(send.offlineSpendable)")
            #expect(await untilTrue { send.settled == UInt64(home.settled ?? -1) && home.settled == 13_500 })
            let receive = try #require(app.makeReceive(hints: [.tcp("127.0.0.1:1")], locale: Self.locale))
            #expect(receive.currency == Currency("EUR"))
            #expect(app.makeNearbyDevices() != nil)
            #expect(app.makeScan().progress == nil)

            // Logout takes every screen away; a new start builds new ones.
            await app.stop()
            #expect(app.home == nil && app.history == nil && app.settingsModel == nil && app.makeBuy() == nil)
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            #expect(app.settingsModel !== screen && app.history !== history && app.home !== home)
        }
    }

    @Test func withoutANearbyTransportThereIsNoDevicesSheetAndWithoutASessionNoBuyOrSettings() async throws {
        let pair = try WalletPair(funds: 1_000)
        let settings = InMemorySettingsStore()
        let app = AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
            notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings))
        app.start(wallet: AsyncWallet(pair.payer), session: nil)
        #expect(app.makeNearbyDevices() == nil)
        #expect(app.makeBuy() == nil && app.settingsModel == nil && app.home == nil)
        #expect(app.history != nil, "the history is the wallet's, offline too")
        let send = try #require(app.makeSend(locale: Self.locale))
        #expect(send.offlineSpendable == 1_000 && send.services?.session == nil)
        #expect(app.restore == nil, "no restore directory: Settings offers no restore")
    }
}
