import Foundation
import SQLStore
import Synchronization

/// Fixed-window rate limits shared through the database without a database round trip per
/// request: hits are counted locally and published every `flushInterval` in one non-durable
/// transaction, which also brings back the other processes' counts. A bucket may overshoot its
/// limit by at most the hits one process admits in one interval — acceptable for abuse limits,
/// and the price of keeping writes off the request path.
final class RateLimiter: Sendable {
    private struct Key: Hashable {
        let bucket: String
        let window: Int64
    }

    private struct Counts {
        var published: Int64 = 0
        var pending: Int64 = 0
    }

    private let state = Mutex<[Key: Counts]>([:])
    private let flushing = Mutex<Task<Void, Never>?>(nil)
    let flushInterval: Duration

    init(flushInterval: Duration = .milliseconds(250)) {
        self.flushInterval = flushInterval
    }

    /// Counts one hit; returns nil if allowed, else seconds until the window ends.
    /// `now` is the issuer's clock (`Issuer.open(clock:)`), never the wall clock read here, so a
    /// test that sets the issuer's time knows which window every hit falls in
    /// (RateLimiterTests); the server passes the real time.
    func hit(bucket: String, limit: Int, windowSeconds: Int64, now: Int64, database: any SQLDatabase) -> Int64? {
        let window = now - now % windowSeconds
        let key = Key(bucket: bucket, window: window)
        let allowed = state.withLock { counts -> Bool in
            var c = counts[key, default: Counts()]
            guard c.published + c.pending < Int64(limit) else { return false }
            c.pending += 1
            counts[key] = c
            return true
        }
        startFlushing(database)
        return allowed ? nil : max(1, window + windowSeconds - now)
    }

    private func startFlushing(_ database: any SQLDatabase) {
        flushing.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self] in
                while !Task.isCancelled {
                    guard let self else { return }
                    try? await Task.sleep(for: self.flushInterval)
                    try? await self.flush(database)
                }
            }
        }
    }

    /// Publishes pending hits and refreshes the shared counts. Also drops old windows.
    func flush(_ database: any SQLDatabase) async throws {
        let pending = state.withLock { counts -> [(Key, Int64)] in
            var out: [(Key, Int64)] = []
            for (key, c) in counts where c.pending > 0 {
                out.append((key, c.pending))
                counts[key]?.pending = 0
            }
            return out
        }
        guard !pending.isEmpty else { return }
        let totals = try await database.transaction(durable: false) { conn -> [(Key, Int64)] in
            var totals: [(Key, Int64)] = []
            for (key, n) in pending.sorted(by: { ($0.0.bucket, $0.0.window) < ($1.0.bucket, $1.0.window) }) {
                let hits =
                    try await conn.queryOne(
                        """
                        INSERT INTO rate_limit(bucket, window_start, hits) VALUES (?, ?, ?)
                        ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit.hits + excluded.hits RETURNING hits
                        """,
                        key.bucket, key.window, n)?.int("hits") ?? n
                totals.append((key, hits))
            }
            return totals
        }
        let newest = totals.map(\.0.window).max() ?? 0
        state.withLock { counts in
            for (key, hits) in totals { counts[key, default: Counts()].published = hits }
            // Windows older than an hour can no longer matter.
            counts = counts.filter { $0.key.window >= newest - 3_600 }
        }
    }

    deinit { flushing.withLock { $0?.cancel() } }
}
