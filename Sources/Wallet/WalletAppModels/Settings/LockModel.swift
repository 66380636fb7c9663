import Observation

/// The biometric lock in front of the wallet: when it is on in Settings, the wallet is locked
/// at launch and whenever the app returns from the background, and only `unlock()` (Face ID /
/// Touch ID through the `BiometricGate`) or the passphrase fallback opens it again. A failed or
/// cancelled attempt leaves it locked with a message.
@Observable @MainActor
public final class LockModel: FocusableForm {
    /// The passphrase fallback's one field.
    public enum Field: CaseIterable, Hashable, Sendable { case passphrase }

    /// What the lock screen shows.
    public enum State: Equatable, Sendable {
        case unlocked
        case locked
        /// The system's biometric prompt is up.
        case authenticating
    }

    /// Why unlocking failed. (Turning the lock on and off is `SettingsModel.setBiometricLock`.)
    public enum LockError: Error, Equatable, Sendable, CustomStringConvertible {
        case notRecognized
        case wrongPassphrase
        case noFallback

        public var description: String {
            switch self {
            case .notRecognized: localized("lock.notRecognized", "Not recognized. Try again, or unlock with your passphrase.")
            case .wrongPassphrase: localized("lock.wrongPassphrase", "Wrong passphrase. Try again.")
            case .noFallback: localized("lock.noFallback", "This wallet has no passphrase; unlock with Face ID or Touch ID.")
            }
        }
    }

    /// The key of the on/off setting in the `SettingsStore` ("true" when on): the one the
    /// Settings screen writes, so its toggle is what locks.
    public static let settingsKey = SettingsModel.biometricKey
    /// The reason shown in the system prompt.
    public nonisolated static var reason: String { localized("lock.reason", "Unlock your wallet") }

    public private(set) var state: State = .unlocked
    /// Whether the lock is turned on: read from the store each time, so a change made on the
    /// Settings screen applies at the next launch or return without telling this model.
    public var isEnabled: Bool { settings.string(forKey: Self.settingsKey) == "true" }
    /// Why the last attempt failed; cleared by the next attempt.
    public private(set) var message: LockError?
    /// The passphrase fallback's field (cleared once it unlocks).
    public var passphrase = ""
    /// The fallback form's focus (one field: Return submits).
    public var focus = FormFocus<Field>()
    /// The fallback started by `submit()`, for whoever waits for it.
    @ObservationIgnored public private(set) var pending: Task<Void, Never>?

    public var isLocked: Bool { state != .unlocked }
    /// Whether the passphrase fallback is offered.
    public var hasFallback: Bool { verifyPassphrase != nil }

    private let gate: any BiometricGate
    private let settings: any SettingsStore
    private let verifyPassphrase: (@Sendable (String) async -> Bool)?

    /// - Parameters:
    ///   - gate: the biometric check (Face ID or Touch ID in the app).
    ///   - settings: where whether the lock is on is persisted.
    ///   - verifyPassphrase: checks the wallet passphrase for the fallback (nil when the wallet
    ///     has none: biometrics only).
    public init(gate: any BiometricGate, settings: any SettingsStore, verifyPassphrase: (@Sendable (String) async -> Bool)? = nil)
    {
        self.gate = gate
        self.settings = settings
        self.verifyPassphrase = verifyPassphrase
    }

    /// The app launched: locked when the lock is on.
    public func launched() { if isEnabled { state = .locked } }

    /// The app went to the background: lock now, so the app switcher's snapshot and the return
    /// both show the lock screen.
    public func enteredBackground() { if isEnabled { state = .locked } }

    /// Asks for Face ID / Touch ID; unlocked only when it passes.
    public func unlock() async {
        guard state == .locked else { return }
        message = nil
        state = .authenticating
        let passed = await gate.authenticate(reason: Self.reason)
        // Backgrounded meanwhile, or unlocked by the passphrase: the later event wins.
        guard state == .authenticating else { return }
        state = passed ? .unlocked : .locked
        if !passed { message = .notRecognized }
    }

    /// The lock screen is showing in an active app: asks for Face ID once. Not again after a
    /// failure or a cancel (the message is up, the button asks again): the system prompt itself
    /// makes the app inactive and active again, so asking on every return would loop.
    public func unlockOnShow() async {
        guard message == nil else { return }
        await unlock()
    }

    /// The fallback: unlocks with the wallet passphrase.
    public func unlock(passphrase: String) async {
        guard state == .locked else { return }
        guard let verifyPassphrase else {
            message = .noFallback
            return
        }
        message = nil
        let passed = await verifyPassphrase(passphrase)
        guard state == .locked else { return }
        if passed {
            state = .unlocked
            self.passphrase = ""
            focus.clearFocus()
        } else {
            message = .wrongPassphrase
            // Back in the field to correct it (Return tries again).
            focus.focus(.passphrase)
        }
    }

    /// Return on the passphrase field and the fallback's Unlock button: tries the typed passphrase.
    public func submit() {
        let typed = passphrase
        pending = Task { await unlock(passphrase: typed) }
    }
}
