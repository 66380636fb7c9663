import OfflineNotes
import Synchronization
import WalletAppModels

// Test doubles of the platform services. They belong in a shared testing module once the
// package has one (issue 9, item 5); until then they live here, not in the shipped module.

/// A biometric gate that answers from a script (true/false in turn; false when it runs out).
final class ScriptedBiometricGate: BiometricGate {
    private let state: Mutex<(answers: [Bool], reasons: [String])>
    init(_ answers: [Bool]) { state = Mutex((answers, [])) }
    var isAvailable: Bool { true }
    func authenticate(reason: String) async -> Bool {
        state.withLock { s in
            s.reasons.append(reason)
            return s.answers.isEmpty ? false : s.answers.removeFirst()
        }
    }
    var reasons: [String] { state.withLock { $0.reasons } }
}

/// Connectivity the test switches by hand; every subscriber gets the current state, then changes.
final class ManualConnectivity: ConnectivityMonitor {
    private let state: Mutex<(current: Connectivity, subscribers: [Int: AsyncStream<Connectivity>.Continuation], next: Int)>

    init(_ initial: Connectivity) { state = Mutex((initial, [:], 0)) }

    func updates() -> AsyncStream<Connectivity> {
        let (stream, continuation) = AsyncStream<Connectivity>.makeStream()
        let id = state.withLock { s in
            let id = s.next
            s.next += 1
            s.subscribers[id] = continuation
            continuation.yield(s.current)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Changes the state; the same state again is not a change and is not sent.
    func set(_ value: Connectivity) {
        state.withLock { s in
            guard s.current != value else { return }
            s.current = value
            for c in s.subscribers.values { c.yield(value) }
        }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// Records sync requests; refuses them when `refuse` is set (background refresh off).
final class RecordingScheduler: BackgroundScheduler {
    private let state = Mutex<(requests: [UInt64], pending: UInt64?, refuse: Bool)>(([], nil, false))
    func scheduleSync(notBefore: UInt64) async throws(BackgroundScheduleError) {
        try state.withLock { (s: inout (requests: [UInt64], pending: UInt64?, refuse: Bool)) throws(BackgroundScheduleError) in
            guard !s.refuse else { throw BackgroundScheduleError("Background refresh is off.") }
            s.requests.append(notBefore)
            s.pending = notBefore
        }
    }
    func cancelSync() async { state.withLock { $0.pending = nil } }
    func refuseRequests() { state.withLock { $0.refuse = true } }
    var pending: UInt64? { state.withLock { $0.pending } }
    var requests: [UInt64] { state.withLock { $0.requests } }
}

/// Keeps every alert posted.
final class RecordingNotifier: Notifier {
    private let alerts = Mutex<[WalletAlert]>([])
    func post(_ alert: WalletAlert) async { alerts.withLock { $0.append(alert) } }
    var posted: [WalletAlert] { alerts.withLock { $0 } }
}

/// A clock the test sets and advances; `sleep(until:)` returns when the test advances it past
/// the deadline (no real waiting).
final class TestClock: AppClock {
    private struct Sleeper {
        let id: Int
        let deadline: Timestamp
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Timestamp
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
        var next = 0
    }
    private let state: Mutex<State>
    init(_ now: Timestamp) { state = Mutex(State(now: now)) }
    func now() -> Timestamp { state.withLock { $0.now } }

    func advance(_ seconds: UInt64) {
        let due = state.withLock { s in
            s.now += seconds
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    func sleep(until deadline: Timestamp) async throws {
        let id = state.withLock { s in
            s.next += 1
            return s.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { s in
                    if s.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if s.now >= deadline { return .success(()) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return nil
                }
                if let outcome { c.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { s in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else {
                    s.cancelled.insert(id)
                    return nil as Sleeper?
                }
                return s.sleepers.remove(at: i)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Tasks waiting on this clock (a test waits for the model to arm its timeout).
    var sleeping: Int { state.withLock { $0.sleepers.count } }
}
