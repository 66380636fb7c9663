import Foundation

/// Why a backup could not be written where the person chose.
public struct BackupDestinationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Where Settings → Back up puts the encrypted backup. The app's implementation presents the
/// system's document exporter (Files, iCloud Drive) and writes there; `FileBackupDestination`
/// writes into a folder (Linux, tests).
public protocol BackupDestination: Sendable {
    /// Writes `bytes` as one file named like `suggestedName` (the person may rename it).
    /// Returns where it went, as the person would recognise it. Throws when it could not be
    /// written (cancelled, disk full); nothing half-written is left under the name.
    func write(_ bytes: [UInt8], suggestedName: String) async throws(BackupDestinationError) -> String
}

/// Backups written into a folder: atomically (a crash leaves no half file under the name),
/// readable by the owner only.
public struct FileBackupDestination: BackupDestination {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    public func write(_ bytes: [UInt8], suggestedName: String) async throws(BackupDestinationError) -> String {
        let url = directory.appendingPathComponent(suggestedName)
        do {
            try Data(bytes).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw BackupDestinationError(
                localized(
                    "backup.notSavedTo", "The backup could not be saved to %1$@ (%2$@). Choose another place.", url.path,
                    ErrorText.message(error)))
        }
        return url.path
    }
}
