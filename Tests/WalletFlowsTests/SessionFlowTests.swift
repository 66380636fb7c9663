import Foundation
import OfflineNotes
import Synchronization
import TestSupport
import Testing
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// The online flows against a real wallet-server on loopback (SQLite).
@Suite("Online flows: login, purchase, auto-recharge, sync")
struct SessionFlowTests {
    @Test func loginPersistsAndRotatesTheRefreshTokenThroughTheStore() async throws {
        // No reuse window: a replaced token is dead at once (and presenting it revokes the family).
        try await LoopbackIssuer.with(refreshReuseWindow: 0) { h in
            let (session, store) = try await h.loggedIn("rotate")
            let first = try store.loadLogin()
            #expect(first.server == h.baseURL.absoluteString)
            #expect(first.email?.hasPrefix("rotate-") == true)
            #expect(first.accountId == session.accountId)
            let firstToken = try #require(first.refreshToken)

            // Resuming rotates the token and saves the new one at once.
            let savesBefore = store.loginSaves
            let resumed = try await WalletSession.resume(wallet: session.wallet, credentials: store, flowState: store)
            let secondToken = try #require(try store.loadLogin().refreshToken)
            #expect(secondToken != firstToken)
            #expect(store.loginSaves == savesBefore + 1)
            #expect(resumed.accountId == session.accountId)
            #expect(try await resumed.account().id == session.accountId)

            // Resuming again with the saved (newest) token works.
            let third = try await WalletSession.resume(wallet: session.wallet, credentials: store, flowState: store)
            #expect(third.accountId == session.accountId)

            // The replaced token is dead: a store still holding it is told to log in again and forgets it.
            var stale = first
            stale.refreshToken = firstToken
            let staleStore = MemoryFlowStore(login: stale)
            await #expect(throws: WalletFlowError.loginExpired) {
                _ = try await WalletSession.resume(wallet: session.wallet, credentials: staleStore, flowState: staleStore)
            }
            #expect(try staleStore.loadLogin().refreshToken == nil)
            #expect(try staleStore.loadLogin().server == first.server)  // the server and email stay for the next login

            // Logout revokes at the issuer and forgets; the token no longer resumes anywhere.
            let current = try store.loadLogin()
            let logout = try await WalletSession.logOut(credentials: store)
            #expect(logout == .init(wasLoggedIn: true, revoked: true, warning: nil, email: current.email))
            #expect(try store.loadLogin().refreshToken == nil && store.loadLogin().accountId == nil)
            let copy = MemoryFlowStore(login: current)
            await #expect(throws: WalletFlowError.loginExpired) {
                _ = try await WalletSession.resume(wallet: session.wallet, credentials: copy, flowState: copy)
            }
            #expect(try await WalletSession.logOut(credentials: store).wasLoggedIn == false)
        }
    }

    @Test func aLostPurchaseAnswerIsRetriedWithTheSameKeyAndBuysOnce() async throws {
        try await LoopbackIssuer.with { h in
            let losing = Mutex(1)  // the first purchase's answer is lost
            let (session, store) = try await h.loggedIn("crash", funds: 10_000) { url in
                IssuerClient(
                    serverURL: url,
                    transport: LosingTransport { operation in
                        operation == "purchaseNotes"
                            && losing.withLock { count in
                                defer { count = max(0, count - 1) }
                                return count > 0
                            }
                    })
            }
            let error = await #expect(throws: IssuerClientError.self) { try await session.purchase(3_000) }
            #expect(error?.isUnreachable == true)
            // The issuer charged it; the wallet never saw the notes; the key is remembered.
            let pending = try #require(try store.loadFlowState().pendingPurchase)
            #expect(pending.amount == 3_000)
            #expect(try await session.account().balance == 7_000)
            #expect(try session.wallet.balance().spendable == 0)

            // The next run (a new session, as after a restart) finishes it with the same key: the
            // issuer answers with the same notes and charges nothing more.
            let next = try await WalletSession.resume(wallet: session.wallet, credentials: store, flowState: store)
            #expect(try await next.finishPendingPurchase() == 3_000)
            #expect(try store.loadFlowState().pendingPurchase == nil)
            #expect(try await next.account().balance == 7_000)
            #expect(try session.wallet.balance().spendable == 3_000)

            // A purchase with a pending one left over finishes that first, then buys.
            try store.updateFlowState { $0.pendingPurchase = pending }  // same key again: still once
            #expect(try await next.purchase(2_000) == 2_000)
            #expect(try await next.account().balance == 5_000)
            #expect(try session.wallet.balance().spendable == 5_000)
            #expect(try store.loadFlowState().pendingPurchase == nil)
        }
    }

    @Test func aRefusedPurchaseIsForgotten() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("poor", funds: 1_000)
            let error = await #expect(throws: IssuerClientError.self) { try await session.purchase(5_000) }
            #expect((400..<500).contains(error?.status ?? 0))
            #expect(try store.loadFlowState().pendingPurchase == nil)
            #expect(try await session.account().balance == 1_000)
            #expect(try await session.purchase(1_000) == 1_000)
        }
    }

    @Test func syncReportsEveryStepInOrderAndWhatHappened() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, aliceStore) = try await h.loggedIn("alice", funds: 10_000)
            let (bob, bobStore) = try await h.loggedIn("bob")
            #expect(try await alice.purchase(5_000) == 5_000)
            let request = try bob.wallet.createRequest(amount: 1_500)
            let sent = try alice.wallet.pay(request)
            _ = try bob.wallet.receive(sent.bundle, for: request.nonce)

            let steps = Mutex<[SyncProgress]>([])
            let bobReport = try await bob.sync(refreshWithin: 3_600, now: 1_800_000_000) { step in
                steps.withLock { $0.append(step) }
            }
            #expect(steps.withLock { $0 }.map(\.step) == SyncStep.allCases)
            #expect(steps.withLock { $0 }.map(\.index) == Array(1...7))
            #expect(steps.withLock { $0 }.allSatisfy { $0.count == 7 })
            #expect(bobReport.redemption.redeemed == 1 && bobReport.redemption.credited == 1_500)
            #expect(bobReport.account.balance == 1_500 && !bobReport.account.frozen)
            #expect(bobReport.recharged == 0 && bobReport.warnings.isEmpty && bobReport.fraudCases.isEmpty)
            #expect(bobReport.balance == (try bob.wallet.balance()))
            #expect(try bobStore.loadFlowState().lastSync == 1_800_000_000)

            // Alice: the payment whose receipt never came back is confirmed; auto-recharge tops
            // her up from 3,500 to the 6,000 target.
            try aliceStore.updateFlowState { $0.autoRecharge = AutoRechargeRule(threshold: 4_000, target: 6_000) }
            let events = alice.syncEvents(refreshWithin: 3_600)
            var seen: [SyncStep] = []
            var report: SyncReport?
            for try await event in events {
                switch event {
                case .progress(let progress): seen.append(progress.step)
                case .finished(let finished): report = finished
                }
            }
            let aliceReport = try #require(report)
            #expect(seen == SyncStep.allCases)
            #expect(aliceReport.settlement.confirmed == 1 && aliceReport.settlement.stillPending == 0)
            #expect(aliceReport.recharged == 2_500)
            #expect(aliceReport.balance.spendable == 6_000)
            #expect(aliceReport.account.balance == 10_000 - 5_000 - 2_500)
            #expect(aliceReport.warnings.isEmpty)
        }
    }

    @Test func anOnlineTransferShowsInHistoryAtOnceAndOnceAfterSync() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("payer", funds: 3_000)
            let (bob, _) = try await h.loggedIn("payee")
            let bobEmail = try #require(try await bob.account().email)
            #expect(try await alice.sendOnline(to: bobEmail, amount: 1_000).balance == 2_000)
            #expect(try alice.wallet.history().filter { $0.counterparty == bobEmail }.count == 1)
            _ = try await alice.sync(refreshWithin: 3_600)
            #expect(try alice.wallet.history().filter { $0.counterparty == bobEmail }.count == 1)  // tied, not doubled
            #expect(try await bob.account().balance == 1_000)
        }
    }

    @Test func anUnaffordableAutoRechargeIsAWarningNotAnError() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("broke")
            try store.updateFlowState { $0.autoRecharge = AutoRechargeRule(threshold: 1_000, target: 2_000) }
            let outcome = try await session.applyAutoRecharge()
            guard case .skipped = outcome else {
                Issue.record("expected a skipped recharge, got \(outcome)")
                return
            }
            #expect(outcome.amount == 0)
            #expect(outcome.warning?.hasPrefix("Auto-recharge skipped: ") == true)
            #expect(try store.loadFlowState().pendingPurchase == nil)  // refused: nothing left to retry

            let report = try await session.sync(refreshWithin: 3_600)
            #expect(report.recharged == 0)
            #expect(report.warnings.count == 1 && report.warnings[0].hasPrefix("Auto-recharge skipped: "))
            #expect(try store.loadFlowState().lastSync == report.syncedAt)

            // Nothing due (no rule) and over the risk budget are not warnings.
            try store.updateFlowState { $0.autoRecharge = nil }
            #expect(try await session.applyAutoRecharge() == .nothingDue)
        }
    }

    @Test func offlineAndLoggedOutErrorsAreTyped() async throws {
        let scratch = try TemporaryDirectory("flows-offline")
        let wallet = try Wallet.create(directory: scratch.path("wallet"), keyCost: .testing)

        let empty = MemoryFlowStore()
        await #expect(throws: WalletFlowError.noServer) {
            _ = try await WalletSession.resume(wallet: wallet, credentials: empty, flowState: empty)
        }
        let noLogin = MemoryFlowStore(login: StoredLogin(server: "http://127.0.0.1:1", email: "a@b.test"))
        await #expect(throws: WalletFlowError.notLoggedIn) {
            _ = try await WalletSession.resume(wallet: wallet, credentials: noLogin, flowState: noLogin)
        }
        #expect(WalletFlowError.notLoggedIn.description.contains("log in again"))

        // Port 1 on loopback: nothing listens, the connection is refused.
        let unreachable = MemoryFlowStore(
            login: StoredLogin(server: "http://127.0.0.1:1", email: "a@b.test", accountId: 7, refreshToken: "t"))
        let error = await #expect(throws: IssuerClientError.self) {
            _ = try await WalletSession.resume(wallet: wallet, credentials: unreachable, flowState: unreachable)
        }
        #expect(error?.isUnreachable == true && error?.code == "server_unreachable")
        #expect(try unreachable.loadLogin().refreshToken == "t")  // offline is not a failed login: kept

        let loginError = await #expect(throws: IssuerClientError.self) {
            _ = try await WalletSession.logIn(
                wallet: wallet, server: "http://127.0.0.1:1", email: "a@b.test", password: "correct horse battery",
                credentials: noLogin, flowState: noLogin)
        }
        #expect(loginError?.isUnreachable == true)

        // Logging out offline still forgets, and says the issuer was not told.
        let logout = try await WalletSession.logOut(credentials: unreachable)
        #expect(logout.wasLoggedIn && !logout.revoked && logout.issuerUnreachable)
        #expect(logout.warning == "the issuer at http://127.0.0.1:1 could not be reached")
        #expect(try unreachable.loadLogin() == StoredLogin(server: "http://127.0.0.1:1", email: "a@b.test"))
    }
}
