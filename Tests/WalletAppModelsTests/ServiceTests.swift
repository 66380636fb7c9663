import Foundation
import OfflineNotes
import Testing
import WalletAppModels

@Suite struct SettingsStoreTests {
    @Test func appearanceDefaultsToSystemAndPersists() throws {
        let store = InMemorySettingsStore()
        #expect(AppearanceSetting.load(from: store) == .system)
        try AppearanceSetting.dark.save(to: store)
        #expect(AppearanceSetting.load(from: store) == .dark)
        try store.set("sepia", forKey: AppearanceSetting.settingsKey)
        #expect(AppearanceSetting.load(from: store) == .system, "an unknown saved value falls back to the default")
    }

    @Test func theFileStoreSurvivesARestart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("settings.json")
        let first = try FileSettingsStore(url: url)
        #expect(AppearanceSetting.load(from: first) == .system, "no file yet: defaults")
        try AppearanceSetting.light.save(to: first)
        try first.set("250", forKey: "autoRecharge.threshold")
        try first.set(nil, forKey: "autoRecharge.threshold")
        let reopened = try FileSettingsStore(url: url)
        #expect(AppearanceSetting.load(from: reopened) == .light)
        #expect(reopened.string(forKey: "autoRecharge.threshold") == nil, "a removed key stays removed")
    }

    @Test func aDamagedFileOrAMissingFolderIsATypedError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let damaged = dir.appendingPathComponent("settings.json")
        try Data("not json".utf8).write(to: damaged)
        #expect(throws: SettingsStoreError.self) { try FileSettingsStore(url: damaged) }

        let nowhere = try FileSettingsStore(url: dir.appendingPathComponent("missing/settings.json"))
        #expect(throws: SettingsStoreError.self) { try AppearanceSetting.dark.save(to: nowhere) }
        #expect(AppearanceSetting.load(from: nowhere) == .system, "a failed save changes nothing")
    }
}

@Suite struct PlatformServiceTests {
    @Test func noBiometricsNeverUnlocks() async {
        let gate: any BiometricGate = NoBiometrics()
        #expect(await gate.isAvailable == false)
        #expect(await gate.authenticate(reason: "Unlock the wallet") == false)
    }

    @Test func theScriptedGateAnswersInTurn() async {
        let gate = ScriptedBiometricGate([true, false])
        #expect(await gate.authenticate(reason: "Unlock") == true)
        #expect(await gate.authenticate(reason: "Pay 12.50 EUR") == false)
        #expect(await gate.authenticate(reason: "Again") == false, "out of answers: locked")
        #expect(gate.reasons == ["Unlock", "Pay 12.50 EUR", "Again"])
    }

    @Test func connectivityStartsWithTheCurrentStateAndSendsOnlyChanges() async {
        let monitor = ManualConnectivity(.offline)
        var updates = monitor.updates().makeAsyncIterator()
        #expect(await updates.next() == .offline)
        monitor.set(.offline)
        monitor.set(.online)
        #expect(await updates.next() == .online, "the repeated offline was not sent")
        var late = monitor.updates().makeAsyncIterator()
        #expect(await late.next() == .online, "a later subscriber starts from the current state")
    }

    @Test func schedulerKeepsOneRequestAndCanRefuse() async throws {
        let scheduler = RecordingScheduler()
        try await scheduler.scheduleSync(notBefore: 100)
        try await scheduler.scheduleSync(notBefore: 200)
        #expect(scheduler.pending == 200)
        await scheduler.cancelSync()
        #expect(scheduler.pending == nil)
        scheduler.refuseRequests()
        await #expect(throws: BackgroundScheduleError.self) { try await scheduler.scheduleSync(notBefore: 300) }
    }

    @Test func notifierAndClocks() async {
        let notifier = RecordingNotifier()
        let eur = Currency("EUR")!
        await notifier.post(.expiring(amount: 500, currency: eur, expiresAt: 1_800_086_400))
        await notifier.post(.fraud(amount: 2_500, currency: eur, caseReference: "case-7"))
        #expect(notifier.posted.count == 2)
        let clock = TestClock(1_800_000_000)
        clock.advance(60)
        #expect(clock.now() == 1_800_000_060)
        #expect(SystemClock().now() > 1_700_000_000, "the system clock is the real time")
    }
}
