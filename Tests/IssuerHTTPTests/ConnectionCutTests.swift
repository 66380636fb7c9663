import Foundation
import IssuerTesting
import SQLStore
import Testing

/// Every request ends when the server's PostgreSQL connections are cut (pg_terminate_backend,
/// as the soak of docs/reliability.md §5 does): none holds its transaction for ever, so a
/// SIGTERM, which waits for them, still stops the server. postgres-nio 1.33.2 never answers a
/// statement written to a connection whose channel has closed (the ROLLBACK after a failed
/// statement, or a body's next statement), so the store must not wait on it alone.
@Suite struct ConnectionCutTests {
    /// 12 workers run short transactions on a 6-connection pool while a side connection
    /// terminates the pool's backends 8 times. Every transaction must end — committed, or
    /// failed with an error that says to retry — and the pool must serve a transaction after.
    @Test func everyTransactionEndsWhenItsConnectionIsCut() async throws {
        guard let url = Backend.url else { return }
        // Named connections, so the cut reaches these and no other test's.
        let name = "cut-test-\(UInt32.random(in: 0...UInt32.max))"
        let store = try PostgresStore(url: url + (url.contains("?") ? "&" : "?") + "application_name=\(name)", maxConnections: 6)
        let side = try PostgresStore(url: url, maxConnections: 1)
        let workers = 12
        let rounds = 30

        // The workload runs in a task of its own, so that a transaction that never returns
        // cannot keep this test (and the run) waiting: the wait below is bounded. The bound is
        // liveness on a loaded machine, not speed: a cut transaction that is not ended never ends.
        let workload = Task { () throws -> CutOutcome in
            try await withThrowingTaskGroup(of: CutOutcome.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        var outcome = CutOutcome()
                        for _ in 0..<rounds {
                            do {
                                try await store.transaction(durable: true) { conn in
                                    _ = try await conn.query("SELECT 1 AS x FROM pg_sleep(0.005)")
                                    _ = try await conn.query("SELECT 2 AS y")
                                }
                                outcome.committed += 1
                            } catch let error as SQLError {
                                outcome.failures.append(error)
                            }
                        }
                        return outcome
                    }
                }
                group.addTask {
                    var outcome = CutOutcome()
                    for _ in 0..<8 {
                        try await Task.sleep(for: .milliseconds(40))
                        let rows = try await side.transaction(durable: true) { conn in
                            try await conn.query(
                                "SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = ?", name)
                        }
                        outcome.terminated += rows.count
                    }
                    return outcome
                }
                var total = CutOutcome()
                for try await part in group { total.merge(part) }
                return total
            }
        }
        guard let outcome = try await Self.result(of: workload, within: .seconds(180)) else {
            Issue.record(
                "transactions still running 180 s after the connection cuts: a transaction whose connection was cut never ended")
            return  // the store is left open: closing it would wait for the stuck transaction
        }
        #expect(outcome.terminated > 0, "the cuts reached no connection: the test exercised nothing")
        #expect(outcome.committed + outcome.failures.count == workers * rounds)
        // A transaction cut before COMMIT is rerun on a fresh connection (up to six attempts);
        // what still fails says to retry.
        for failure in outcome.failures {
            switch failure {
            case .retryable: break
            case .failed(let m) where m.contains("lost during COMMIT"): break
            default: Issue.record("a cut transaction failed with \(failure), not a retryable error")
            }
        }
        // The pool serves fresh connections afterwards.
        let rows = try await store.transaction(durable: true) { try await $0.query("SELECT 3 AS z") }
        #expect(rows.count == 1)
        await store.close()
        await side.close()
    }

    /// The task's value, or nil when it has not finished within `limit` (the task is left running).
    static func result<T: Sendable>(of task: Task<T, any Error>, within limit: Duration) async throws -> T? {
        let race = DeadlineRace<T>()
        let timer = Task {
            try? await Task.sleep(for: limit)
            race.finish(.success(nil))
        }
        defer { timer.cancel() }
        Task {
            do { race.finish(.success(try await task.value)) } catch { race.finish(.failure(error)) }
        }
        return try await race.value()
    }
}

struct CutOutcome: Sendable {
    var committed = 0
    var failures: [SQLError] = []
    var terminated = 0
    mutating func merge(_ other: CutOutcome) {
        committed += other.committed
        failures += other.failures
        terminated += other.terminated
    }
}

/// The first of two finishers wins; the other is ignored.
final class DeadlineRace<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T?, any Error>?
    private var waiter: CheckedContinuation<T?, any Error>?

    func finish(_ r: Result<T?, any Error>) {
        lock.lock()
        guard result == nil else {
            lock.unlock()
            return
        }
        result = r
        let w = waiter
        waiter = nil
        lock.unlock()
        w?.resume(with: r)
    }

    func value() async throws -> T? {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let r = result {
                lock.unlock()
                continuation.resume(with: r)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
