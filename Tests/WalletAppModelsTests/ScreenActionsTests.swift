import Foundation
import OfflineNotes
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletSync
import WalletTestSupport

/// What the screens bind to beyond the original models: history's pull-to-refresh, finishing
/// onboarding, the server change and logout from Settings, the restore form's file-picker
/// failure and button state, and the alerts' words.
@MainActor
@Suite struct ScreenActionsTests {
    static func app(
        settings: InMemorySettingsStore = InMemorySettingsStore(), restoreInto: (@Sendable () -> String)? = nil
    ) -> AppModel {
        AppModel(
            settings: settings, connectivity: ManualConnectivity(.offline), scheduler: RecordingScheduler(),
            notifier: RecordingNotifier(), lock: LockModel(gate: NoBiometrics(), settings: settings),
            restoreInto: restoreInto, restoreKeyCost: .testing)
    }

    @Test func historyPullToRefreshIsTheAppsOneSync() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("pull", funds: 5_000)
            let app = Self.app()
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let history = try #require(app.history)
            await history.refresh()
            #expect(app.syncCount == 1 && app.lastReport != nil, "pull-to-refresh ran the app's sync")
            #expect(history.refreshProblem == nil && !history.isRefreshing)

            // Rows carry their time as a date for the time of day.
            _ = try await session.purchase(1_000)
            history.appear()
            defer { history.disappear() }
            #expect(await untilTrue { !history.rows.isEmpty })
            let row = try #require(history.rows.first)
            #expect(row.date == Date(timeIntervalSince1970: TimeInterval(row.createdAt)))
        }
    }

    @Test func historyWithoutALoginSaysSoAndAFailedSyncIsShown() async throws {
        try await LoopbackIssuer.with { h in
            let (wallet, _) = try h.wallet("nologin")
            let app = Self.app()
            app.start(wallet: AsyncWallet(wallet), session: nil)
            let history = try #require(app.history)
            await history.refresh()
            #expect(history.refreshProblem?.contains("Not logged in") == true)
            #expect(app.syncCount == 0)

            let failing = HistoryModel(wallet: wallet, runSync: { nil })
            await failing.refresh()
            #expect(failing.refreshProblem?.contains("Sync failed") == true && !failing.isRefreshing)
        }
    }

    @Test func finishingOnboardingStartsTheAppOnlyWhenDone() async throws {
        try await LoopbackIssuer.with { h in
            let store = MemoryFlowStore()
            let onboarding = OnboardingModel(
                walletDirectory: h.dir + "/finish-" + UUID().uuidString.prefix(6), credentials: store, flowState: store,
                keyCost: .testing)
            let app = Self.app()
            #expect(app.finishOnboarding(onboarding) == false && app.wallet == nil, "not done: nothing starts")
            onboarding.server = h.baseURL.absoluteString
            await onboarding.submitStep()
            onboarding.email = "finish-\(UUID().uuidString.prefix(6))@screens.test"
            onboarding.password = "correct horse battery"
            await onboarding.submitStep()
            await onboarding.submitStep()
            #expect(onboarding.step == .done, "\(String(describing: onboarding.error))")
            #expect(app.finishOnboarding(onboarding))
            #expect(app.wallet != nil && app.session != nil && app.home != nil && app.settingsModel != nil && app.history != nil)
        }
    }

    @Test func anotherServerEndsTheSessionAndAnInvalidOneIsRefused() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("mover")
            let app = Self.app()
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let settings = try #require(app.settingsModel)

            settings.serverText = "not a url"
            #expect(await app.saveServer(from: settings) == false)
            #expect(settings.error == .invalidServer("not a url") && app.session != nil, "nothing changed")

            settings.serverText = h.baseURL.absoluteString
            #expect(await app.saveServer(from: settings) == false && app.session != nil, "the same server keeps the login")

            settings.serverText = "https://other.example.com"
            #expect(await app.saveServer(from: settings))
            #expect(app.session == nil && app.settingsModel == nil, "the old login means nothing there: log in again")
            #expect(try store.loadLogin().server == "https://other.example.com" && store.loadLogin().refreshToken == nil)
        }
    }

    @Test func logOutRevokesForgetsAndStopsButKeepsTheWallet() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("leaver", funds: 3_000)
            _ = try await session.purchase(1_000)
            let token = try #require(try store.loadLogin().refreshToken)
            let app = Self.app()
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            #expect(await app.logOut() == nil, "the issuer was told")
            #expect(app.session == nil && app.settingsModel == nil)
            #expect(try store.loadLogin().refreshToken == nil)
            #expect(try await app.wallet?.balance().spendable == 1_000, "the notes stay")
            // The revoked token no longer opens a session.
            let revoked = IssuerClient(serverURL: h.baseURL)
            await #expect(throws: (any Error).self) { try await revoked.resume(refreshToken: token) }
            #expect(await app.logOut() == nil, "logged out already: nothing to do")
        }
    }

    @Test func theRestoreFormReportsAPickerFailureAndEnablesRestoreOnlyWhenReady() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("picker")
            let app = Self.app(restoreInto: { h.dir + "/r-" + UUID().uuidString.prefix(6) })
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let restore = try #require(app.restore)
            #expect(!restore.canRestore)
            restore.chooseFile([1, 2, 3], name: "b.owbackup")
            #expect(!restore.canRestore, "no passphrase yet")
            restore.passphrase = "correct staple 42 horses"
            #expect(restore.canRestore)

            // The picker's answer: a file that exists is chosen by name.
            let picked = URL(fileURLWithPath: h.dir + "/picked.owbackup")
            try Data([9, 9]).write(to: picked)
            restore.chooseFile(.success(picked))
            #expect(restore.fileName == "picked.owbackup" && restore.canRestore)

            struct PickerFailed: Error, CustomStringConvertible { var description: String { "no access" } }
            restore.chooseFile(.failure(PickerFailed()))
            #expect(restore.fileName == nil && !restore.canRestore)
            guard case .failed(.unreadableFile(let why)) = restore.state else {
                Issue.record("expected an unreadable file, got \(restore.state)")
                return
            }
            #expect(why.contains("no access"))
        }
    }

    @Test func alertsSayWhatHappenedAndWhatToDo() throws {
        let eur = try #require(Currency("EUR"))
        let fraud = WalletAlert.fraud(amount: 2_500, currency: eur, caseReference: "case 7")
        #expect(fraud.title == "Double spend detected")
        #expect(fraud.message.contains("25.00 EUR") && fraud.message.contains("case 7"))
        #expect(fraud.amountText == "25.00 EUR" && fraud.expiryDate == nil)
        let expiring = WalletAlert.expiring(amount: 500, currency: eur, expiresAt: 1_800_000_000)
        #expect(expiring.expiryDate == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(expiring.message.contains("5.00 EUR") && expiring.message.contains("sync"))
        let expired = WalletAlert.expired(count: 0, amount: 100, currency: eur)
        #expect(expired.title == "Notes expired" && expired.message.contains("1.00 EUR"))
        #expect(Set([fraud.id, expiring.id, expired.id]).count == 3)
        #expect(!fraud.suggestsSync && expiring.suggestsSync && expired.suggestsSync)
        #expect(WalletAlert.fraud(amount: 2_500, currency: eur, caseReference: "case 7").id == fraud.id)
    }
}

/// The lock screen's passphrase fallback as a form: Return submits, the field clears once open.
@MainActor
@Suite struct LockFormTests {
    @Test func returnOnThePassphraseUnlocksAndClearsIt() async throws {
        let settings = InMemorySettingsStore([LockModel.settingsKey: "true"])
        let lock = LockModel(gate: ScriptedBiometricGate([]), settings: settings) { $0 == "wallet pass 1" }
        lock.launched()
        lock.focus.focus(.passphrase)
        #expect(lock.focus.returnSubmits, "one field: Return is Done")
        lock.passphrase = "guess"
        lock.focusNext()
        await lock.pending?.value
        #expect(lock.isLocked && lock.message == .wrongPassphrase && lock.passphrase == "guess", "kept to correct it")
        #expect(lock.focus.focused == .passphrase, "back in the field: Return tries again")
        lock.passphrase = "wallet pass 1"
        lock.focusNext()
        await lock.pending?.value
        #expect(!lock.isLocked && lock.passphrase.isEmpty && lock.focus.focused == nil)
    }
}

/// A history row's words: kind, status, and the VoiceOver sentence.
@MainActor
@Suite struct HistoryRowTextTests {
    /// Alice's history after she bought 50.00 EUR of notes and paid Bob 12.50 EUR of them by QR,
    /// open (two rows) while `body` runs.
    static func withAliceHistory(_ body: @MainActor (HistoryModel) async throws -> Void) async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("row-alice", funds: 10_000)
            let (bob, _) = try await h.loggedIn("row-bob")
            _ = try await alice.purchase(5_000)
            let request = try await AsyncWallet(bob.wallet).createRequest(amount: 1_250, payeeName: "Bob")
            _ = try await AsyncWallet(alice.wallet).pay(request, method: .qr)
            let history = HistoryModel(wallet: alice.wallet)
            history.appear()
            defer { history.disappear() }
            #expect(await untilTrue { history.rows.count == 2 })
            try await body(history)
        }
    }

    @Test func aRowReadsAsOneSentence() async throws {
        try await Self.withAliceHistory { history in
            let sent = try #require(history.rows.first { $0.direction == .sent })
            #expect(sent.directionText == "Sent" && sent.statusText == "Pending" && sent.counterpartyText == "Bob")
            #expect(
                sent.accessibilitySummary.hasPrefix("Sent to Bob, minus 12.50 EUR, Pending, by QR"),
                "\(sent.accessibilitySummary)")
            let bought = try #require(history.rows.first { $0.direction == .purchased })
            #expect(bought.directionText == "Bought" && bought.accessibilitySummary.contains("plus 50.00 EUR"))
            await history.open(sent.id)
            #expect(history.detail?.chainText == "1 transfer since issue")
        }
    }
}

/// A payee's name is the payee's own text: its control characters are shown, never acted on.
@MainActor
@Suite struct OtherPartyTextTests {
    @Test func aHostilePayeeNameIsShownWithItsControlCharactersVisible() async throws {
        try await LoopbackIssuer.with { h in
            let (alice, _) = try await h.loggedIn("hostile-alice", funds: 10_000)
            let (bob, _) = try await h.loggedIn("hostile-bob")
            _ = try await alice.purchase(5_000)
            let name = "Stall\u{1B}[2J\r\nFAKE: Paid\u{202E}"
            let request = try await AsyncWallet(bob.wallet).createRequest(amount: 300, payeeName: name)
            _ = try await AsyncWallet(alice.wallet).pay(request, method: .qr)
            let history = HistoryModel(wallet: alice.wallet)
            history.appear()
            defer { history.disappear() }
            #expect(await untilTrue { history.rows.contains { $0.direction == .sent } })
            let sent = try #require(history.rows.first { $0.direction == .sent })
            let visible = "Stall\u{241B}[2J\u{240D}\u{240A}FAKE: Paid<U+202E>"
            #expect(sent.counterpartyText == visible)
            #expect(sent.accessibilitySummary.contains(visible), "\(sent.accessibilitySummary)")
            #expect(sent.counterparty == name, "the stored line keeps the name as signed")
        }
    }
}

/// Settings, Back up and Restore words: the appearance titles, errors under their own section,
/// the passphrase rule and the progress lines.
@MainActor
@Suite struct SettingsTextTests {
    @Test func errorsShowUnderTheirSectionAndTheFormsSayWhereTheyAre() async throws {
        #expect(AppearanceSetting.allCases.map(\.title) == ["System", "Light", "Dark"])
        #expect(BackupModel.ruleText.contains("\(PassphrasePolicy.minimumLength) characters"))
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("words", funds: 5_000)
            let app = ScreenActionsTests.app(restoreInto: { h.dir + "/w-" + UUID().uuidString.prefix(6) })
            app.start(wallet: AsyncWallet(session.wallet), session: session)
            let settings = try #require(app.settingsModel)

            settings.autoRechargeOn = true
            settings.threshold = 100
            settings.target = 100
            #expect(!settings.saveAutoRecharge())
            #expect(settings.errorText(for: .autoRecharge) == SettingsModel.SettingsError.targetNotAboveThreshold.description)
            #expect(settings.errorText(for: .security) == nil && settings.errorText(for: .server) == nil)
            #expect(await settings.setBiometricLock(true) == false, "no biometrics here")
            #expect(settings.errorText(for: .security) != nil && settings.errorText(for: .autoRecharge) == nil)
            #expect(settings.wholeUnitsText(20) == "20 EUR")

            let backup = settings.backup
            #expect(backup.statusText == nil && !backup.isWorking)
            backup.passphrase = "short"
            await backup.backUp()
            #expect(backup.statusIsError && backup.statusText?.contains("too weak") == true)

            let restore = try #require(app.restore)
            #expect(restore.statusText == nil)
            restore.passphrase = "x"
            await restore.restore()
            #expect(restore.statusIsError && restore.statusText == RestoreError.noFile.description)
        }
    }
}

/// After a logout the same wallet logs in again through onboarding's server and account steps.
@MainActor
@Suite struct LogInAgainTests {
    @Test func aLoggedOutWalletLogsInAgainWithItsNotes() async throws {
        try await LoopbackIssuer.with { h in
            let store = MemoryFlowStore()
            let (wallet, _) = try h.wallet("again")
            let email = "again-\(UUID().uuidString.prefix(6))@screens.test"
            let (session, _) = try await WalletSession.logIn(
                wallet: wallet, server: h.baseURL.absoluteString, email: email, password: "correct horse battery", register: true,
                credentials: store, flowState: store)
            try await session.client.fund(4_000)
            _ = try await session.purchase(1_500)
            let app = ScreenActionsTests.app()
            #expect(app.makeLogIn(credentials: store, flowState: store) == nil, "no wallet open: nothing to log in with")
            app.start(wallet: AsyncWallet(wallet), session: session)
            #expect(!app.needsLogIn, "logged in")
            _ = await app.logOut()
            #expect(app.session == nil && app.needsLogIn, "logged out: only logging in again brings sync back")

            let login = try #require(app.makeLogIn(credentials: store, flowState: store))
            #expect(login.isLoggingInAgain && login.mode == .logIn)
            #expect(login.server == h.baseURL.absoluteString && login.email == email, "the saved server and email are filled in")
            #expect(login.stepCaption == "Step 1 of 2 · Server")
            await login.submitStep()
            #expect(login.step == .account && login.stepCaption == "Step 2 of 2 · Account")
            login.password = "wrong password 1"
            await login.submitStep()
            #expect(login.error == .wrongPassword && login.step == .account)
            login.password = "correct horse battery"
            await login.submitStep()
            #expect(login.step == .done, "no wallet step: \(String(describing: login.error))")
            #expect(app.finishOnboarding(login))
            #expect(app.session != nil && app.settingsModel != nil && !app.needsLogIn)
            #expect(try await app.wallet?.balance().spendable == 1_500, "the same wallet, its notes kept")
            #expect(try await app.session?.account().balance == 2_500)
        }
    }
}

/// The lock screen asks by itself once; after a failure only the button asks again.
@MainActor
@Suite struct LockOnShowTests {
    @Test func showingTheLockAsksOnceAndNotAgainAfterAFailure() async throws {
        let settings = InMemorySettingsStore([LockModel.settingsKey: "true"])
        let gate = ScriptedBiometricGate([false, true])
        let lock = LockModel(gate: gate, settings: settings)
        lock.launched()
        await lock.unlockOnShow()
        #expect(lock.isLocked && lock.message == .notRecognized)
        await lock.unlockOnShow()
        #expect(gate.reasons.count == 1, "a failure is not retried by itself: the prompt's own inactive/active would loop")
        await lock.unlock()
        #expect(!lock.isLocked && gate.reasons.count == 2)
        lock.enteredBackground()
        await lock.unlockOnShow()
        #expect(gate.reasons.count == 3, "locked again after a success: asks by itself once more")
    }
}

extension LogInAgainTests {
    @Test func aWalletOpenedOfflineWithASavedLoginDoesNotNeedLoggingIn() async throws {
        try await LoopbackIssuer.with { h in
            let (wallet, directory) = try h.wallet("offline-open")
            let store = MemoryFlowStore()
            _ = try await WalletSession.logIn(
                wallet: wallet, server: h.baseURL.absoluteString, email: "offline-\(UUID().uuidString.prefix(6))@screens.test",
                password: "correct horse battery", register: true, credentials: store, flowState: store)
            let dead = try #require(URL(string: "http://127.0.0.1:1"))
            let app = ScreenActionsTests.app()
            try await app.open(directory: directory, credentials: store, flowState: store) { _ in IssuerClient(serverURL: dead) }
            #expect(app.wallet != nil && app.session == nil)
            #expect(!app.needsLogIn, "the saved login resumes by itself when the issuer answers")
        }
    }
}
