#if canImport(BackgroundTasks)
import BackgroundTasks
import Foundation
import Synchronization
import WalletAppModels

/// Background sync through BGTaskScheduler: one `BGAppRefreshTaskRequest` at a time, no earlier
/// than the time `AppModel` asks for. iOS decides when it really runs (usage patterns, battery,
/// Low Power Mode, Background App Refresh in Settings); it may be hours later, or never while
/// the person force-quits the app.
///
/// The identifier must be in Info.plist's `BGTaskSchedulerPermittedIdentifiers`, which lists
/// `$(PRODUCT_BUNDLE_IDENTIFIER).sync`: both follow the bundle id (changed by a personal team).
struct BackgroundSyncScheduler: BackgroundScheduler {
    let identifier: String
    /// When a background sync fails or is cut short, the next try is asked for this much later.
    let retryAfter: TimeInterval

    init(identifier: String = BackgroundSyncScheduler.defaultIdentifier, retryAfter: TimeInterval = 15 * 60) {
        self.identifier = identifier
        self.retryAfter = retryAfter
    }

    /// `<bundle id>.sync`, matching Info.plist.
    static var defaultIdentifier: String { (Bundle.main.bundleIdentifier ?? "org.offlinewallet.app") + ".sync" }

    func scheduleSync(notBefore: UInt64) async throws(BackgroundScheduleError) {
        try submit(earliest: Date(timeIntervalSince1970: TimeInterval(notBefore)))
    }

    func cancelSync() async {
        BGTaskScheduler.shared.cancel(taskRequestWithIdentifier: identifier)
    }

    /// Submitting replaces the pending request with the same identifier.
    private func submit(earliest: Date) throws(BackgroundScheduleError) {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = earliest
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch let error as BGTaskScheduler.Error {
            switch error.code {
            case .unavailable:
                throw BackgroundScheduleError(
                    "Background App Refresh is off for this app (Settings → General → Background App Refresh), or this is a simulator."
                )
            case .notPermitted:
                throw BackgroundScheduleError(
                    "The app is not permitted to schedule \(identifier) (Info.plist BGTaskSchedulerPermittedIdentifiers).")
            case .tooManyPendingTaskRequests:
                throw BackgroundScheduleError("Too many background requests are pending.")
            default:
                throw BackgroundScheduleError("Background sync could not be scheduled (\(error.localizedDescription)).")
            }
        } catch {
            throw BackgroundScheduleError("Background sync could not be scheduled (\(error.localizedDescription)).")
        }
    }

    /// Registers the launch handler. Must run before the app finishes launching (the App's
    /// `init`), on every launch: iOS keeps the request, not the handler.
    ///
    /// When iOS runs the task: `sync()` runs on the main actor (it is `AppModel.runBackgroundSync`,
    /// which joins a sync already running); its result is the task's success. A failure asks
    /// for another try `retryAfter` later (a success was already re-scheduled by `AppModel`).
    /// When iOS cuts the time short, the expiration handler cancels the waiting, completes the
    /// task as failed and asks for a retry; the sync itself is one transaction per step and
    /// safe to stop anywhere (the next one resumes it).
    ///
    /// The closures are `@Sendable` (not isolated to the caller's actor) on purpose: iOS calls
    /// the launch handler on a background queue and the expiration handler on its own, and a
    /// closure that inherited the main actor would trap there under Swift 6's isolation checks.
    func register(sync: @escaping @MainActor () async -> Bool) {
        let scheduler = self
        let registered = BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { @Sendable task in
            let handle = TaskHandle(task)
            let work = Task { @MainActor in
                let succeeded = await sync()
                if !succeeded { scheduler.retry() }
                handle.complete(success: succeeded && !Task.isCancelled)
            }
            task.expirationHandler = { @Sendable in
                work.cancel()
                scheduler.retry()
                handle.complete(success: false)
            }
        }
        // False only when the identifier is missing from Info.plist: a build mistake, not a
        // runtime condition; scheduling then reports `.notPermitted` in Settings.
        assert(registered, "\(identifier) is not in BGTaskSchedulerPermittedIdentifiers")
    }

    private func retry() {
        try? submit(earliest: Date().addingTimeInterval(retryAfter))
    }
}

/// The running BGTask, completed exactly once (by the work or by the expiration, whichever is
/// first). `@unchecked Sendable`: BGTask's `setTaskCompleted` may be called from any thread, and
/// `done` guards the once.
private final class TaskHandle: @unchecked Sendable {
    private let task: BGTask
    private let done = Mutex(false)

    init(_ task: BGTask) { self.task = task }

    func complete(success: Bool) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        if first { task.setTaskCompleted(success: success) }
    }
}
#endif
