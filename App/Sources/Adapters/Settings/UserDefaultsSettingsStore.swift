import Foundation
import WalletAppModels

/// Settings (appearance, biometric lock, alerts already shown…) in `UserDefaults`: small strings,
/// read often, written rarely. Not for secrets (the login is in the Keychain) nor for state that
/// must survive a crash the moment it is written (the flow state is a file written atomically):
/// UserDefaults persists asynchronously, and losing the last change of a setting is harmless.
///
/// Platform-neutral Foundation, so `scripts/check-app` type-checks it on Linux too.
struct UserDefaultsSettingsStore: SettingsStore {
    /// A suite name (an app group, tests), or nil for the app's standard defaults.
    let suiteName: String?

    init(suiteName: String? = nil) { self.suiteName = suiteName }

    /// Looked up per call rather than stored: `UserDefaults` is thread-safe but not declared
    /// `Sendable` on every SDK, and the lookup is a cached dictionary read.
    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    func string(forKey key: String) -> String? { defaults.string(forKey: key) }

    func set(_ value: String?, forKey key: String) throws(SettingsStoreError) {
        if let value {
            defaults.set(value, forKey: key)
        } else {
            defaults.removeObject(forKey: key)
        }
    }
}
