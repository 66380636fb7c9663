/// The app's colour scheme choice in Settings, persisted.
public enum AppearanceSetting: String, CaseIterable, Sendable {
    /// Follow the system's light/dark setting (the default).
    case system
    case light
    case dark

    /// The key under which it is stored.
    public static let settingsKey = "appearance"

    /// The saved choice; `.system` when none was saved or the saved value is unknown.
    public static func load(from store: some SettingsStore) -> AppearanceSetting {
        store.string(forKey: settingsKey).flatMap(AppearanceSetting.init(rawValue:)) ?? .system
    }

    /// Saves this choice.
    public func save(to store: some SettingsStore) throws(SettingsStoreError) {
        try store.set(rawValue, forKey: Self.settingsKey)
    }
}
