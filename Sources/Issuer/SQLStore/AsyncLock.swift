import Synchronization

/// A FIFO lock for async code: holds across suspension points, unlike a mutex, and never
/// blocks a thread while waiting.
public final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    public func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { s -> Bool in
                if s.locked {
                    s.waiters.append(continuation)
                    return false
                }
                s.locked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, if any.
    public func unlock() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.locked = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }

    public func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }
}
