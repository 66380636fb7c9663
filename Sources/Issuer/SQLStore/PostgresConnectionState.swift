import Foundation
import NIOCore
import PostgresNIO
import Synchronization

// What PostgresStore keeps per connection: the waiters of its statements when it closes, which
// connections are in use, and each connection's prepared statements.

/// Resumes a continuation once, with whichever of a statement and the connection's closure ends first.
final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }

    func resume(with result: Result<T, any Error>) {
        continuation.withLock { c in
            defer { c = nil }
            return c
        }?.resume(with: result)
    }
}

/// Runs the waiters of one connection's statements when the connection closes. One callback
/// on `closeFuture` per connection, not per statement: a pooled connection lives long, and
/// callbacks on its `closeFuture` are kept until it closes.
final class ClosureWatch: Sendable {
    private struct State {
        var closed = false
        var next: UInt64 = 0
        var waiters: [UInt64: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())

    /// Registers `waiter`; nil when the connection has already closed (nothing registered).
    func add(_ waiter: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { s in
            guard !s.closed else { return nil }
            s.next += 1
            s.waiters[s.next] = waiter
            return s.next
        }
    }

    func remove(_ token: UInt64) {
        _ = state.withLock { $0.waiters.removeValue(forKey: token) }
    }

    func close() {
        let waiters = state.withLock { s in
            s.closed = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter() }
    }
}

/// What the store keeps for each open connection, by connection: the watch on its closure and
/// its prepared statements. Made on a connection's first lease, dropped when it closes.
final class ConnectionStates: Sendable {
    final class State: Sendable {
        let watch = ClosureWatch()
        let statements = StatementCache()
        /// With several hosts: the connection was found to be on the primary (checked once, on
        /// its first lease; a demotion restarts the server and so closes the connection).
        let checkedPrimary = Atomic<Bool>(false)
        /// The server refused a write as read-only (SQLSTATE 25006): it is a standby.
        let answeredAsStandby = Atomic<Bool>(false)
    }

    private let byID = Mutex<[PostgresConnection.ID: State]>([:])

    func state(of connection: PostgresConnection) -> State {
        let (state, isNew) = byID.withLock { map in
            if let s = map[connection.id] { return (s, false) }
            let s = State()
            map[connection.id] = s
            return (s, true)
        }
        if isNew {
            // Runs in the event-loop turn that removes the channel's handlers (see untilClosed).
            connection.closeFuture.whenComplete { _ in
                self.byID.withLock { map in
                    if map[connection.id] === state { map[connection.id] = nil }
                }
                state.watch.close()
            }
        }
        return state
    }
}

/// One connection's prepared statements, by SQL text and bind types (`Connection.key`). A
/// statement is prepared the second time the connection runs it, so a one-off costs no extra
/// round trip; at most `capacity` are kept, and the least recently used one is closed to make
/// room. A connection is leased by one transaction at a time: the lock only makes this Sendable.
final class StatementCache: Sendable {
    enum Use {
        /// Run it unnamed: the first sighting.
        case unnamed
        /// Prepare it, then run it: the second sighting.
        case prepare
        /// Run this statement, prepared earlier.
        case prepared(PreparedQuery)
    }

    /// Statements kept prepared per connection: the hot paths use a few dozen.
    static let capacity = 64
    /// Texts remembered as seen once, before the memory is cleared and starts again.
    static let remembered = 1_024

    private struct State {
        var seen: Set<String> = []
        var prepared: [String: (statement: PreparedQuery, used: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// How to run the statement under `key` now.
    func use(_ key: String) -> Use {
        state.withLock { s in
            s.clock += 1
            if let kept = s.prepared[key] {
                s.prepared[key] = (kept.statement, s.clock)
                return .prepared(kept.statement)
            }
            if s.seen.remove(key) != nil { return .prepare }
            if s.seen.count >= Self.remembered { s.seen.removeAll(keepingCapacity: true) }
            s.seen.insert(key)
            return .unnamed
        }
    }

    /// Keeps `statement` under `key`; returns the statement it displaced, for the caller to close.
    func keep(_ statement: PreparedQuery, for key: String) -> PreparedQuery? {
        state.withLock { s in
            var displaced: PreparedQuery?
            if s.prepared[key] == nil, s.prepared.count >= Self.capacity,
                let oldest = s.prepared.min(by: { $0.value.used < $1.value.used })
            {
                displaced = oldest.value.statement
                s.prepared[oldest.key] = nil
            }
            s.clock += 1
            s.prepared[key] = (statement, s.clock)
            return displaced
        }
    }

    /// Forgets every statement (stale after a schema change); each is prepared again on use. The
    /// old ones stay on the server, unused, until the connection closes: this happens only when
    /// a table under them changed.
    func forgetAll() {
        state.withLock { $0 = State() }
    }

    /// Statements kept now.
    var count: Int { state.withLock { $0.prepared.count } }
}
