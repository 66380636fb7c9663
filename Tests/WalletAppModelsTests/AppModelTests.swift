import Foundation
import OfflineNotes
import Synchronization
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// The shared app model against a real issuer: connectivity returning syncs once, alerts once.
@MainActor
@Suite struct AppModelTests {
    static func appModel(
        connectivity: ManualConnectivity, scheduler: RecordingScheduler = RecordingScheduler(),
        notifier: RecordingNotifier = RecordingNotifier(), settings: InMemorySettingsStore = InMemorySettingsStore()
    ) -> AppModel {
        AppModel(
            settings: settings, connectivity: connectivity, scheduler: scheduler, notifier: notifier,
            lock: LockModel(gate: NoBiometrics(), settings: settings))
    }

    @Test func connectivityReturningRunsOneSyncAndOneAutoRecharge() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("alice", funds: 20_000)
            try store.updateFlowState { $0.autoRecharge = AutoRechargeRule(threshold: 1_000, target: 3_000) }
            let network = ManualConnectivity(.offline)
            let scheduler = RecordingScheduler()
            let app = Self.appModel(connectivity: network, scheduler: scheduler)
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            #expect(await untilTrue { network.subscriberCount == 1 })
            #expect(app.syncCount == 0, "starting offline does not sync")

            // Back online, a flap, online again — all before the model's task sees any of them.
            network.set(.online)
            network.set(.offline)
            network.set(.online)
            #expect(await untilTrue { app.syncCount == 1 && app.syncState == .idle && app.lastReport != nil })
            // Bounded settle: any late event would have started a second sync by now.
            #expect(await untilTrue { app.connectivity == .online })
            #expect(app.syncCount == 1, "events during the sync joined it")
            let report = try #require(app.lastReport)
            #expect(report.recharged == 3_000, "the auto-recharge bought up to the target once")
            #expect(try session.wallet.balance().spendable == 3_000)
            #expect(try await session.account().balance == 17_000, "charged once")
            #expect(scheduler.pending == report.syncedAt + 3_600, "the next background sync is scheduled after it")

            // Going offline and back later is a new return: one more sync, nothing more to buy.
            network.set(.offline)
            #expect(await untilTrue { app.connectivity == .offline })
            network.set(.online)
            #expect(await untilTrue { app.syncCount == 2 && app.syncState == .idle })
            #expect(try await session.account().balance == 17_000)

            // Home shows the sync it did not start, and its pull-to-refresh is the app's sync.
            let home = try #require(app.home)
            #expect(home.settled == 17_000 && home.lastSync == app.lastReport?.syncedAt)
            await home.refresh()
            #expect(app.syncCount == 3 && home.refreshState == .idle)
        }
    }

    @Test func theLifecycleLocksAndABackgroundSyncWithoutSessionFails() async throws {
        let settings = InMemorySettingsStore([SettingsModel.biometricKey: "true"])
        let gate = ScriptedBiometricGate([true])
        let app = AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
            notifier: RecordingNotifier(), lock: LockModel(gate: gate, settings: settings))
        app.launched()
        #expect(app.lock.isLocked)
        await app.lock.unlock()
        #expect(!app.lock.isLocked)
        app.enteredBackground()
        #expect(app.lock.isLocked)
        #expect(await app.runBackgroundSync() == false, "no session: nothing synced, reported as failed")
        #expect(app.syncCount == 0)
    }

    @Test func aSyncThatCannotReachTheIssuerFailsWithAMessageAndCanRunAgain() async throws {
        var kept: (session: WalletSession, directory: String)?
        try await LoopbackIssuer.with { h in kept = try await h.loggedInOutliving("dora") }
        let (session, directory) = try #require(kept)  // its server has stopped now
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let network = ManualConnectivity(.offline)
        let notifier = RecordingNotifier()
        let app = Self.appModel(connectivity: network, notifier: notifier)
        app.start(wallet: AsyncWallet(session.wallet), session: session)
        #expect(await app.sync() == nil)
        guard case .failed(let message) = app.syncState else {
            Issue.record("expected a failed sync, got \(app.syncState)")
            return
        }
        #expect(message.contains("Cannot reach the issuer"))
        #expect(notifier.posted.isEmpty)
        #expect(await app.sync() == nil && app.syncCount == 2, "a failed sync does not block the next one")
    }

    @Test func openedOfflineTheLoginIsResumedWhenTheNetworkReturns() async throws {
        try await LoopbackIssuer.with { h in
            let (wallet, directory) = try h.wallet("erin")
            let store = MemoryFlowStore()
            _ = try await WalletSession.logIn(
                wallet: wallet, server: h.baseURL.absoluteString, email: "erin-\(UUID().uuidString.prefix(6))@app.test",
                password: "correct horse battery", register: true, credentials: store, flowState: store)
            let reachable = Mutex(false)
            let dead = try #require(URL(string: "http://127.0.0.1:1"))
            let network = ManualConnectivity(.offline)
            let app = Self.appModel(connectivity: network)
            try await app.open(directory: directory, credentials: store, flowState: store) { url in
                IssuerClient(serverURL: reachable.withLock { $0 } ? url : dead)
            }
            #expect(app.wallet != nil && app.session == nil, "offline launch: the wallet opens, the login waits")
            #expect(await untilTrue { network.subscriberCount == 1 })

            reachable.withLock { $0 = true }
            network.set(.online)
            #expect(await untilTrue { app.syncCount == 1 && app.syncState == .idle && app.lastReport != nil })
            #expect(app.session != nil && app.home != nil, "the resumed login is the app's session now")
            let again = await app.sync()
            #expect(again != nil && app.syncCount == 2, "\(app.syncState), \(app.syncCount)")
        }
    }

    @Test func aLaunchWhileOnlineSyncsOnce() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("fred")
            let app = Self.appModel(connectivity: ManualConnectivity(.online))
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            #expect(await untilTrue { app.syncCount == 1 && app.lastReport != nil })
            #expect(app.connectivity == .online && app.syncCount == 1)
        }
    }

    @Test func aFraudCaseIsAlertedOnce() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("alice", funds: 10_000)
            let (bob, _) = try await h.loggedIn("bob")
            _ = try await alice.purchase(1_000)

            // Alice pays Bob offline, then signs the same note to Bob again outside her wallet
            // (a tampered phone). Bob's wallet catches it and keeps the proof; every sync
            // reports the proof, and the issuer names the same case each time.
            let first = try bob.wallet.createRequest(amount: 1_000)
            let paid = try alice.wallet.pay(first, amount: 1_000)
            _ = try bob.wallet.receive(paid.bundle, for: first.nonce)
            let spent = try #require(try PaymentBundle(decoding: paid.bundle).chains.first)
            let note = Chain(note: spent.note)
            let (again, second) = try alice.wallet.signAgain(
                note, to: bob.wallet, amount: note.note.amount, now: UInt64(Date().timeIntervalSince1970))
            #expect(throws: WalletError.self) { try bob.wallet.receive(second, for: again.nonce) }
            #expect(try bob.wallet.fraudProofs().count == 1)

            let notifier = RecordingNotifier()
            let settings = InMemorySettingsStore()
            let app = Self.appModel(connectivity: ManualConnectivity(.online), notifier: notifier, settings: settings)
            app.start(wallet: AsyncWallet(bob.wallet), session: bob)
            let report = try #require(await app.sync())
            #expect(report.fraudCases.count == 1, "the issuer opened a case from Bob's proof")
            // The amount at stake is the double-spent note's, from Bob's own proof.
            #expect(report.fraudCases.map { report.fraudAmounts[$0] } == [1_000])
            let expected = report.fraudCases.map {
                WalletAlert.fraud(amount: 1_000, currency: report.balance.currency, caseReference: "case \($0)")
            }
            #expect(notifier.posted == expected)
            #expect(app.alerts == expected)

            let next = try #require(await app.sync())
            #expect(next.fraudCases == report.fraudCases, "the case is named again by the next sync")
            #expect(notifier.posted == expected, "but not posted again")

            // A restarted app (same settings) does not post it again either.
            let restarted = Self.appModel(connectivity: ManualConnectivity(.online), notifier: notifier, settings: settings)
            restarted.start(wallet: AsyncWallet(bob.wallet), session: bob)
            _ = try #require(await restarted.sync())
            #expect(notifier.posted == expected)
            app.dismiss(expected[0])
            #expect(app.alerts.isEmpty, "dismissed by the person")
        }
    }
}
