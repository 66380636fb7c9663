import Synchronization

/// A clock (seconds since the epoch) that a test sets and advances, shared by the wallets,
/// issuers and screen models of one test. `sleep(until:)` returns when the test moves the
/// clock past the deadline, so timeouts are tested without waiting. Thread-safe.
public final class TestClock: Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: UInt64
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
        var next = 0
    }

    private let state: Mutex<State>

    public init(_ now: UInt64) { state = Mutex(State(now: now)) }

    /// The time now.
    public func now() -> UInt64 { state.withLock { $0.now } }

    /// Moves the clock `seconds` forward; wakes the sleepers whose deadline has come.
    public func advance(_ seconds: UInt64) { update { $0 += seconds } }

    /// Sets the time; wakes the sleepers whose deadline has come.
    public func set(_ time: UInt64) { update { $0 = time } }

    private func update(_ change: (inout UInt64) -> Void) {
        let due = state.withLock { s in
            change(&s.now)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once the clock reads `deadline` or later; throws `CancellationError` if the
    /// calling task is cancelled first.
    public func sleep(until deadline: UInt64) async throws {
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

    /// Tasks waiting on this clock (a test waits for a model to arm its timeout).
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// This clock with the time as a settable property, for harnesses whose tests write
    /// `h.clock.now += 60` (the same clock, not a copy).
    public var settable: Settable { Settable(clock: self) }

    /// A view of a `TestClock` whose `now` is a property that can be assigned.
    public struct Settable: Sendable {
        public let clock: TestClock
        public var now: UInt64 {
            get { clock.now() }
            nonmutating set { clock.set(newValue) }
        }
    }
}
