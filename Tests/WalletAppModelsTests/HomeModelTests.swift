import Foundation
import OfflineNotes
import Synchronization
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The home screen against a real wallet-server on loopback: every change shows through
/// observation alone (the test never asks the model to reload).
@Suite("Home model")
@MainActor
struct HomeModelTests {
    @Test func aPurchaseAndAnIncomingPaymentShowThroughObservationAlone() async throws {
        try await LoopbackIssuer.with { @MainActor h in
            let (alice, _) = try await h.loggedIn("alice", funds: 50_000)
            let (bob, bobStore) = try await h.loggedIn("bob", funds: 0)
            let clock = TestClock(1_800_000_000)
            let home = HomeModel(session: bob, connectivity: ManualConnectivity(.online), clock: clock, recentCount: 3)
            #expect(home.freshness == .neverSynced)
            #expect(home.freshness.description == "Never synced")
            home.appear()
            defer { home.disappear() }
            #expect(await untilTrue { home.snapshot != nil && home.settled == 0 })
            #expect(home.total == 0 && home.offlineSpendable == 0 && home.split == .init(offlinePermille: 0, settledPermille: 0))
            #expect(home.riskBudget == 100_000 && home.riskBudgetLeft == 100_000)
            #expect(home.quickActions == [.send, .receive, .buy, .scan])

            // Bob's account is funded and he buys through the Buy sheet: the home screen's
            // offline balance follows by observation.
            try await bob.client.fund(20_000)
            let buy = BuyModel(session: bob, balance: try #require(home.snapshot).balance, locale: Locale(identifier: "en_US"))
            buy.amount.text = "120"
            await buy.buy()
            guard case .bought(let result) = buy.phase else {
                Issue.record("buy: \(buy.phase)")
                return
            }
            #expect(result == .init(amount: 12_000, offlineSpendable: 12_000, settled: 8_000, riskBudgetLeft: 88_000))
            #expect(await untilTrue { home.offlineSpendable == 12_000 })
            #expect(home.riskBudgetLeft == 88_000)

            // Alice pays Bob offline; Bob's home shows it as unsettled without any call.
            try await alice.purchase(30_000)
            let request = try await AsyncWallet(bob.wallet).createRequest(amount: 2_500, payeeName: "Bob")
            let payment = try await AsyncWallet(alice.wallet).pay(request)
            _ = try await AsyncWallet(bob.wallet).receive(payment.bundle)
            #expect(await untilTrue { home.unsettled == 2_500 })
            #expect(home.offlineTotal == 14_500)
            #expect(home.recent.first?.direction == .received && home.recent.first?.amount == 2_500)
            #expect(home.recent.count <= 3)

            // Pull-to-refresh: one sync redeems the received notes; the settled balance and
            // "Updated" follow its result.
            await home.refresh()
            #expect(home.refreshState == .idle)
            #expect(home.settled == 10_500)
            #expect(home.lastSync == clock.now())
            #expect(try bobStore.loadFlowState().lastSync == clock.now())
            clock.advance(180)
            #expect(home.freshness == .updated(secondsAgo: 180))
            #expect(home.freshness.description == "Updated 3 min ago")
            #expect(await untilTrue { home.unsettled == 0 && home.offlineTotal == 12_000 })
            #expect(home.total == 22_500)
            #expect(home.split == .init(offlinePermille: 533, settledPermille: 467))
        }
    }

    @Test func aSyncRunElsewhereReachesTheHomeScreenAndPullToRefreshUsesTheAppsRunner() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("runner", funds: 3_000)
            let runs = SyncRunCounter()
            let clock = TestClock(1_800_000_000)
            let home = HomeModel(session: session, connectivity: ManualConnectivity(.online), clock: clock) {
                runs.value += 1
                return try? await session.sync(refreshWithin: 0, now: clock.now())
            }
            // A sync run by someone else (the app when the network came back) is applied.
            try await session.client.fund(1_000)
            home.apply(try await session.sync(refreshWithin: 0, now: 1_799_999_000))
            #expect(home.settled == 4_000 && home.lastSync == 1_799_999_000)
            #expect(home.freshness.description == "Updated 16 min ago")
            // Pull-to-refresh goes through the runner.
            await home.refresh()
            #expect(runs.value == 1 && home.refreshState == .idle && home.lastSync == 1_800_000_000)
        }
    }

    @Test func theBadgeFollowsTheConnectivityMonitorAndStopsWhenTheScreenGoes() async throws {
        try await LoopbackIssuer.with { @MainActor h in
            let (session, _) = try await h.loggedIn("badge")
            let network = ManualConnectivity(.offline)
            let home = HomeModel(session: session, connectivity: network)
            #expect(home.connectivity == nil)
            home.appear()
            #expect(await untilTrue { home.connectivity == .offline })
            network.set(.online)
            #expect(await untilTrue { home.connectivity == .online })
            network.set(.offline)
            #expect(await untilTrue { home.connectivity == .offline })
            #expect(network.subscriberCount == 1)
            home.appear()  // again while observing: no second subscription
            #expect(network.subscriberCount == 1)
            home.disappear()
            #expect(await untilTrue { network.subscriberCount == 0 })
        }
    }

    @Test func aRefreshWhileTheIssuerIsUnreachableSaysSoAndKeepsTheBalances() async throws {
        let stranded = Mutex<(session: WalletSession, directory: String)?>(nil)
        // A server that is stopped once this block returns: its URL is unreachable afterwards.
        try await LoopbackIssuer.with { h in
            let kept = try await h.loggedInOutliving("gone", funds: 5_000)
            stranded.withLock { $0 = kept }
        }
        let (session, directory) = try #require(stranded.withLock { $0 })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let home = HomeModel(session: session, connectivity: ManualConnectivity(.offline))
        home.appear()
        defer { home.disappear() }
        #expect(await untilTrue { home.snapshot != nil && home.problem != nil })
        #expect(home.settled == nil)
        await home.refresh()
        guard case .failed(let message) = home.refreshState else {
            Issue.record("\(home.refreshState)")
            return
        }
        #expect(message.contains("Cannot reach the issuer"))
        #expect(home.freshness == .neverSynced)
    }
}

@MainActor
private final class SyncRunCounter {
    var value = 0
}
