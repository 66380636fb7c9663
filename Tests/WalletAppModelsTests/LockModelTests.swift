import Testing
import WalletAppModels

@MainActor
@Suite struct LockModelTests {
    @Test func lockedOnLaunchAndOnReturnUntilBiometricsPass() async throws {
        let settings = InMemorySettingsStore()
        let gate = ScriptedBiometricGate([false, true, true])
        let lock = LockModel(gate: gate, settings: settings)
        lock.launched()
        #expect(!lock.isLocked, "off by default: launching does not lock")

        try settings.set("true", forKey: SettingsModel.biometricKey)  // what the Settings toggle saves
        let relaunched = LockModel(gate: gate, settings: settings)
        relaunched.launched()
        #expect(relaunched.state == .locked, "on after a restart: locked at launch")

        await relaunched.unlock()
        #expect(relaunched.state == .locked && relaunched.message == .notRecognized, "a failure keeps it locked, with a message")
        await relaunched.unlock()
        #expect(relaunched.state == .unlocked && relaunched.message == nil)

        relaunched.enteredBackground()
        #expect(relaunched.isLocked, "returning from the background shows the lock")
        await relaunched.unlock()
        #expect(!relaunched.isLocked)
        #expect(gate.reasons == [LockModel.reason, LockModel.reason, LockModel.reason])
        await relaunched.unlock()
        #expect(gate.reasons.count == 3, "an unlocked wallet does not prompt")
    }

    @Test func theSettingsToggleIsWhatLocks() throws {
        let settings = InMemorySettingsStore()
        let lock = LockModel(gate: NoBiometrics(), settings: settings)
        lock.enteredBackground()
        #expect(!lock.isLocked, "off: going to the background does not lock")
        try settings.set("true", forKey: SettingsModel.biometricKey)
        lock.enteredBackground()
        #expect(lock.isLocked, "turned on in Settings after this model was made: it locks")
        try settings.set("false", forKey: SettingsModel.biometricKey)
        #expect(!lock.isEnabled)
    }

    @Test func thePassphraseFallbackUnlocks() async throws {
        let settings = InMemorySettingsStore([LockModel.settingsKey: "true"])
        let lock = LockModel(gate: ScriptedBiometricGate([false]), settings: settings) { $0 == "wallet pass 1" }
        lock.launched()
        await lock.unlock()
        #expect(lock.isLocked && lock.hasFallback)
        await lock.unlock(passphrase: "guess")
        #expect(lock.isLocked && lock.message == .wrongPassphrase)
        await lock.unlock(passphrase: "wallet pass 1")
        #expect(!lock.isLocked && lock.message == nil)

        let noFallback = LockModel(gate: ScriptedBiometricGate([]), settings: settings)
        noFallback.launched()
        await noFallback.unlock(passphrase: "wallet pass 1")
        #expect(noFallback.isLocked && noFallback.message == .noFallback)
    }
}
