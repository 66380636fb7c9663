// Self-test (scripts/check-app, "privacy"): lint-privacy.py, given PrivacyPlanted.xcprivacy (user
// defaults and disk space declared, nothing else), MUST flag exactly the lines that end in a
// "privacy:" comment, and no other. A declared category's uses, comments, strings and a model's
// own property of the same name are not findings. Never compiled: only linted.
import Foundation
import UIKit

struct PlantedPrivacyUses {
    var creationDate: Date
    let settings = UserDefaults.standard
    let fileManager = FileManager.default

    func fileDates(_ path: String) throws -> [Date?] {
        let attributes = try fileManager.attributesOfItem(atPath: path)
        return [
            attributes[.modificationDate] as? Date,  // privacy:
            attributes[FileAttributeKey.creationDate] as? Date,  // privacy:
            (attributes as NSDictionary).fileModificationDate(),  // privacy:
        ]
    }

    func resourceDate(_ url: URL) throws -> Date? {
        try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate  // privacy:
    }

    func permissions(_ path: String) -> mode_t {
        var info = stat()  // privacy:
        guard Darwin.stat(path, &info) == 0 else { return 0 }  // privacy:
        return info.st_mode
    }

    func freeSpace(_ url: URL) throws -> Int? {
        let free = try fileManager.attributesOfFileSystem(forPath: url.path)[.systemFreeSize] as? Int
        let important = try url.resourceValues(forKeys: [.volumeAvailableCapacityForImportantUsageKey])
        return free ?? important.volumeAvailableCapacityForImportantUsage.map(Int.init)
    }

    func uptime() -> TimeInterval {
        ProcessInfo.processInfo.systemUptime  // privacy:
    }

    func ticks() -> UInt64 { mach_absolute_time() }  // privacy:

    @MainActor func keyboards() -> Int { UITextInputMode.activeInputModes.count }  // privacy:

    func notUses(_ model: PlantedPrivacyUses) -> String {
        // UserDefaults, stat(path), systemUptime and mach_absolute_time() in a comment are not uses.
        let named = model.creationDate.description
        return named + "stat(path) mach_absolute_time() activeInputModes" + (settings.string(forKey: "k") ?? "")
    }
}
