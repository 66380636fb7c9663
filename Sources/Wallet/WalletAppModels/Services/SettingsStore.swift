import Foundation
import Synchronization

/// Why a setting could not be saved.
public struct SettingsStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Small persisted settings (appearance, auto-recharge, biometric lock): string values by key,
/// like UserDefaults, which is the app's implementation. Values a type cannot read back fall
/// back to its default, so a damaged or older value never blocks the app.
public protocol SettingsStore: Sendable {
    func string(forKey key: String) -> String?
    /// Stores `value` (nil removes the key).
    func set(_ value: String?, forKey key: String) throws(SettingsStoreError)
}

/// Settings kept in memory only (previews, and wallets that must not leave traces).
public final class InMemorySettingsStore: SettingsStore {
    private let values: Mutex<[String: String]>

    public init(_ values: [String: String] = [:]) { self.values = Mutex(values) }

    public func string(forKey key: String) -> String? { values.withLock { $0[key] } }

    public func set(_ value: String?, forKey key: String) throws(SettingsStoreError) {
        values.withLock { $0[key] = value }
    }
}

/// Settings in a JSON file (the command line's wallet directory, Linux). Each change rewrites
/// the file atomically, so a crash leaves the old or the new settings, never half of them.
public final class FileSettingsStore: SettingsStore {
    public let url: URL
    private let values: Mutex<[String: String]>

    /// Reads `url` if it exists. A file that is not a JSON object of strings is an error
    /// rather than silently emptied settings.
    public init(url: URL) throws(SettingsStoreError) {
        self.url = url
        guard let data = FileManager.default.contents(atPath: url.path) else {
            values = Mutex([:])
            return
        }
        do {
            values = Mutex(try JSONDecoder().decode([String: String].self, from: data))
        } catch {
            throw SettingsStoreError(
                localized(
                    "settings.notASettingsFile", "%1$@ is not a settings file (%2$@); move it away to start with defaults.",
                    url.path,
                    ErrorText.message(error)))
        }
    }

    public func string(forKey key: String) -> String? { values.withLock { $0[key] } }

    public func set(_ value: String?, forKey key: String) throws(SettingsStoreError) {
        // Under the lock, so two writers cannot save in the opposite order of their changes.
        try values.withLock { (values: inout [String: String]) throws(SettingsStoreError) in
            var next = values
            next[key] = value
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                try encoder.encode(next).write(to: url, options: .atomic)
            } catch {
                throw SettingsStoreError(
                    localized(
                        "settings.cannotSave", "Cannot save settings to %1$@ (%2$@). Check the folder exists and is writable.",
                        url.path,
                        ErrorText.message(error)))
            }
            values = next
        }
    }
}
