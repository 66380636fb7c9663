import Foundation
import IssuerTesting
import SQLStore
import Testing

/// The soak (docs/reliability.md §5) found requests that never got an answer after the
/// server's PostgreSQL connections were cut with pg_terminate_backend: each held its
/// transaction for ever, and a SIGTERM could no longer stop the server (it waits for them).
@Suite struct ConnectionCutTests {
    /// Disabled until fixed: it hangs (reproduced 2026-11-24 on postgres-nio 1.33.2; the task
    /// group cannot end while a transaction never returns, so it would stop the whole test
    /// run). Run it with `scripts/with-postgres .build/debug/OfflineWalletPackageTests.xctest
    /// --testing-library swift-testing --filter ConnectionCutTests` after removing the trait.
    @Test(.disabled("open defect: a PostgreSQL transaction whose connection is terminated never ends (docs/reliability.md §5)"))
    func everyTransactionEndsWhenItsConnectionIsCut() async throws {
        guard let url = Backend.url else { return }
        // Named connections, so the cut reaches these and no other test's.
        let name = "cut-test-\(UInt32.random(in: 0...UInt32.max))"
        let store = try PostgresStore(url: url + (url.contains("?") ? "&" : "?") + "application_name=\(name)", maxConnections: 6)
        let side = try PostgresStore(url: url, maxConnections: 1)
        let finished = LockedCount()
        let workers = 12
        let rounds = 30
        // A liveness bound for a loaded machine, not a speed check: without the fix a cut
        // transaction never returns at all.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    for _ in 0..<rounds {
                        _ = try? await store.transaction(durable: true) { conn in
                            _ = try await conn.query("SELECT 1 AS x FROM pg_sleep(0.005)")
                            _ = try await conn.query("SELECT 2 AS y")
                        }
                    }
                    finished.add()
                }
            }
            group.addTask {
                for _ in 0..<8 {
                    try await Task.sleep(for: .milliseconds(40))
                    _ = try await side.transaction(durable: true) { conn in
                        try await conn.query("SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = ?", name)
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(120))
                throw CutTestHang()
            }
            // The workers and the cutter end; the watchdog is cancelled once they have.
            var ended = 0
            while ended < workers + 1 {
                try await group.next()
                ended += 1
            }
            group.cancelAll()
        }
        #expect(finished.value == workers)
        // The pool is usable afterwards.
        let rows = try await store.transaction(durable: true) { try await $0.query("SELECT 3 AS z") }
        #expect(rows.count == 1)
        await store.close()
        await side.close()
    }
}

struct CutTestHang: Error, CustomStringConvertible {
    var description: String { "transactions still running 120 s after the connection cuts: a cut connection's transaction never ended" }
}

final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
