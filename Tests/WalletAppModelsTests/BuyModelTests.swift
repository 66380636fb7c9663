import Foundation
import OfflineNotes
import Synchronization
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// The Buy sheet against a real issuer: every error state a person can reach, and nothing
/// bought when one happens.
@Suite("Buy model")
@MainActor
struct BuyModelTests {
    static let us = Locale(identifier: "en_US")

    @Test func offlineWhenTheIssuerCannotBeReached() async throws {
        let stranded = Mutex<(session: WalletSession, directory: String)?>(nil)
        // The server stops when this block returns: its URL is unreachable afterwards.
        try await LoopbackIssuer.with { h in
            let kept = try await h.loggedInOutliving("offline-buyer", funds: 10_000)
            stranded.withLock { $0 = kept }
        }
        let (session, directory) = try #require(stranded.withLock { $0 })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let buy = BuyModel(session: session, balance: try session.wallet.balance(), locale: Self.us)
        buy.appear()
        #expect(buy.focus.focused == .amount)
        buy.applyQuickAmount(25)
        #expect(buy.amount.text == "25.00" && buy.canBuy)
        await buy.buy()
        #expect(buy.phase == .failed(.offline))
        #expect(try session.wallet.balance().spendable == 0)
        #expect(BuyModel.BuyError.offline.description.contains("cannot be reached"))
        buy.edit()
        #expect(buy.phase == .editing && buy.amount.text == "25.00")
    }

    @Test func insufficientAccountFundsBuysNothing() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("poor", funds: 1_000)
            let buy = BuyModel(session: session, balance: try session.wallet.balance(), locale: Self.us)
            buy.amount.text = "50"
            await buy.buy()
            guard case .failed(.insufficientAccountFunds(let detail)) = buy.phase else {
                Issue.record("\(buy.phase)")
                return
            }
            #expect(!detail.isEmpty)
            #expect(try session.wallet.balance().spendable == 0)
            #expect(try await session.account().balance == 1_000)
            #expect(try store.loadFlowState().pendingPurchase == nil)  // refused: nothing to retry
        }
    }

    @Test func aboveTheHoldingLimitLocallyAndAtTheIssuer() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("holder", funds: 200_000)
            let (bob, _) = try await h.loggedIn("payee")
            // Typed above the risk budget: refused before anything is sent, the limit shown.
            let first = BuyModel(session: alice, balance: try alice.wallet.balance(), locale: Self.us)
            #expect(first.holdingLimit == 100_000 && first.riskBudgetLeft == 100_000)
            first.amount.text = "1000.01"
            #expect(!first.canBuy)
            await first.buy()
            #expect(first.phase == .failed(.aboveHoldingLimit(limit: 100_000, currency: Currency("EUR")!)))
            #expect(try await alice.account().balance == 200_000)

            // The issuer counts notes paid away until the payee redeems them, so its limit can
            // bite while the wallet's own budget says there is room: that refusal is typed too.
            first.edit()
            first.amount.text = "600"
            await first.buy()
            guard case .bought(let bought) = first.phase else {
                Issue.record("\(first.phase)")
                return
            }
            #expect(bought.amount == 60_000 && bought.riskBudgetLeft == 40_000 && bought.settled == 140_000)
            let request = try await AsyncWallet(bob.wallet).createRequest(amount: 50_000)
            let payment = try await AsyncWallet(alice.wallet).pay(request)
            _ = try await AsyncWallet(bob.wallet).receive(payment.bundle)
            let second = BuyModel(session: alice, balance: try alice.wallet.balance(), locale: Self.us)
            #expect(second.riskBudgetLeft == 90_000)
            second.amount.text = "500"
            #expect(second.canBuy)
            await second.buy()
            #expect(second.phase == .failed(.aboveHoldingLimit(limit: 100_000, currency: Currency("EUR")!)))
            #expect(try await alice.account().balance == 140_000)
        }
    }

    @Test func anInvalidAmountIsItsOwnError() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("typo", funds: 1_000)
            let buy = BuyModel(session: session, balance: try session.wallet.balance(), locale: Self.us)
            buy.amount.text = "1.234"
            await buy.buy()
            #expect(buy.phase == .failed(.invalidAmount(.tooManyDecimals(allowed: 2, currency: Currency("EUR")!))))
        }
    }
}
