#if canImport(UIKit)
import Foundation
import WalletAppModels

/// Backups land in the app's Documents folder, which Info.plist (`UIFileSharingEnabled`,
/// `LSSupportsOpeningDocumentsInPlace`) shows in the Files app under On My iPhone → Offline
/// Wallet. From there the person moves, AirDrops or uploads the file anywhere.
///
/// Chosen over presenting the system document exporter from here: `BackupDestination.write`
/// is called by the model in the middle of an async step, and a UIKit picker presented from an
/// adapter would need a window and a view controller the model knows nothing about. A file in
/// Documents needs none, always succeeds unless the disk is full, and is visible at once. The
/// backup is passphrase-encrypted, so it may sit in Documents (and in device backups); the
/// wallet itself lives elsewhere (`WalletStorage`) and is never visible in Files.
struct FilesBackupDestination: BackupDestination {
    /// The Documents folder shown in Files.
    let directory: URL

    init() throws {
        directory = try FileManager.default.url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    }

    func write(_ bytes: [UInt8], suggestedName: String) async throws(BackupDestinationError) -> String {
        // Atomic, owner-only; the same writer the command line uses.
        _ = try await FileBackupDestination(directory: directory).write(bytes, suggestedName: suggestedName)
        return "Files → On My iPhone → Offline Wallet → \(suggestedName)"
    }
}
#endif
