import Foundation
import OfflineNotes
import TestSupport
import Testing
import WalletAppModels
import WalletCore
import WalletFlows
import WalletTestSupport

/// Settings against a real issuer: values persist where the flows read them and reload in a new
/// model; the biometric lock turns on only after a successful check.
@Suite("Settings model")
@MainActor
struct SettingsModelTests {
    /// This test's scratch folder, removed when the test ends (each test gets its own suite value).
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("settings") }

    func settingsFile() -> URL { URL(fileURLWithPath: scratch.path("settings.json")) }

    @Test func valuesPersistReloadAndDriveAutoRecharge() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("settings", funds: 50_000)
            let home = HomeModel(session: session, connectivity: ManualConnectivity(.online))
            home.appear()
            defer { home.disappear() }
            #expect(await untilTrue { home.snapshot != nil && home.settled == 50_000 })
            let file = settingsFile()
            let settings = SettingsModel(
                session: session, home: home, settings: try FileSettingsStore(url: file),
                biometrics: ScriptedBiometricGate([true]))
            #expect(!settings.autoRechargeOn && settings.threshold == 20 && settings.target == 100)
            #expect(settings.preview == .off && settings.appearance == .system && !settings.biometricLock)

            // Steppers move by their step and stay in range.
            settings.stepThreshold(up: true)
            #expect(settings.threshold == 30)
            for _ in 0..<100 { settings.stepThreshold(up: true) }
            #expect(settings.threshold == 500)
            settings.threshold = 10
            settings.stepThreshold(up: false)
            #expect(settings.threshold == 10)
            settings.stepTarget(up: true)
            #expect(settings.target == 125)
            for _ in 0..<100 { settings.stepTarget(up: false) }
            #expect(settings.target == 50)

            // Off-grid values (saved by the command line, say) snap to the grid on the next step.
            settings.threshold = 45
            settings.stepThreshold(up: true)
            #expect(settings.threshold == 50)
            settings.threshold = 45
            settings.stepThreshold(up: false)
            #expect(settings.threshold == 40)
            settings.target = 2_000
            settings.stepTarget(up: false)
            #expect(settings.target == 1_000)

            // A target not above the threshold is refused and nothing is saved.
            settings.autoRechargeOn = true
            settings.threshold = 60
            settings.target = 50
            #expect(!settings.saveAutoRecharge())
            #expect(settings.error == .targetNotAboveThreshold)
            #expect(try store.loadFlowState().autoRecharge == nil)

            // Off the steppers' grid (a damaged value, a view bug): refused, not rounded silently.
            settings.threshold = 45
            settings.target = 150
            #expect(!settings.saveAutoRecharge())
            #expect(settings.error == .outOfRange(field: .threshold, range: 10...500, step: 10))
            settings.threshold = 40
            settings.target = 1_025
            #expect(!settings.saveAutoRecharge())
            #expect(settings.error == .outOfRange(field: .target, range: 50...1000, step: 25))
            #expect(try store.loadFlowState().autoRecharge == nil)
            settings.threshold = 40
            settings.target = 150
            #expect(settings.preview == .willRechargeNow(to: 15_000))
            #expect(settings.previewText == "Will recharge now")
            #expect(settings.saveAutoRecharge())
            #expect(try store.loadFlowState().autoRecharge == AutoRechargeRule(threshold: 4_000, target: 15_000))

            // The flows use the saved rule; the preview follows the home screen's balances.
            #expect(try await session.applyAutoRecharge() == .bought(15_000))
            #expect(await untilTrue { settings.preview == .afterRecharge(15_000) })
            #expect(settings.previewText == "After recharge: 150.00 EUR")
            #expect(settings.offline == 15_000)

            await settings.setBiometricLock(true)
            #expect(settings.biometricLock)
            settings.setAppearance(.dark)

            // A new model on the same stores reads everything back.
            let reloaded = SettingsModel(
                session: session, home: home, settings: try FileSettingsStore(url: file), biometrics: NoBiometrics())
            #expect(reloaded.autoRechargeOn && reloaded.threshold == 40 && reloaded.target == 150)
            #expect(reloaded.biometricLock && reloaded.appearance == .dark)

            // Off is saved as no rule.
            reloaded.autoRechargeOn = false
            #expect(reloaded.saveAutoRecharge())
            #expect(try store.loadFlowState().autoRecharge == nil)
            #expect(reloaded.preview == .off)
        }
    }

    @Test func theBiometricLockTurnsOnOnlyAfterASuccessfulCheck() async throws {
        try await LoopbackIssuer.with { h in
            let (session, _) = try await h.loggedIn("lock")
            let home = HomeModel(session: session, connectivity: ManualConnectivity(.online))
            let store = InMemorySettingsStore()
            let refusing = ScriptedBiometricGate([false])
            let settings = SettingsModel(session: session, home: home, settings: store, biometrics: refusing)
            #expect(await settings.setBiometricLock(true) == false)
            #expect(!settings.biometricLock && settings.error == .biometricsRefused)
            #expect(store.string(forKey: SettingsModel.biometricKey) == nil)
            #expect(refusing.reasons.count == 1)

            let noHardware = SettingsModel(session: session, home: home, settings: store, biometrics: NoBiometrics())
            #expect(await noHardware.setBiometricLock(true) == false)
            #expect(noHardware.error == .biometricsUnavailable && !noHardware.biometricLock)

            let passing = SettingsModel(session: session, home: home, settings: store, biometrics: ScriptedBiometricGate([true]))
            #expect(await passing.setBiometricLock(true))
            #expect(store.string(forKey: SettingsModel.biometricKey) == "true")
            #expect(await passing.setBiometricLock(false))  // turning it off needs no check
            #expect(store.string(forKey: SettingsModel.biometricKey) == "false")
        }
    }

    @Test func theServerIsValidatedAndAnotherOneEndsTheLogin() async throws {
        try await LoopbackIssuer.with { h in
            let (session, store) = try await h.loggedIn("server")
            let home = HomeModel(session: session, connectivity: ManualConnectivity(.online))
            let settings = SettingsModel(
                session: session, home: home, settings: InMemorySettingsStore(), biometrics: NoBiometrics())
            #expect(settings.serverText == h.baseURL.absoluteString && settings.serverProblem == nil)
            #expect(!settings.saveServer())  // unchanged: the login stays
            #expect(try store.loadLogin().refreshToken != nil)
            for bad in ["", "wallet.example.com", "ftp://wallet.example.com", "http://"] {
                settings.serverText = bad
                #expect(settings.serverProblem == .invalidServer(bad), "\(bad)")
                #expect(!settings.saveServer())
            }
            #expect(try store.loadLogin().server == h.baseURL.absoluteString)
            settings.serverText = "https://other.example.com"
            #expect(settings.saveServer())
            let login = try store.loadLogin()
            #expect(login.server == "https://other.example.com" && login.refreshToken == nil && login.email != nil)
        }
    }
}
