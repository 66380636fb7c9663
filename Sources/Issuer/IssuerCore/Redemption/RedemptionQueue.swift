import Synchronization

/// Group commit: redemptions that arrive while a transaction is running wait and are written
/// together in the next one, so one durable commit (one fsync) serves many requests. There is
/// no timer: under light load a request commits alone, at once.
final class RedemptionQueue: Sendable {
    struct Waiter {
        let item: PendingRedemption
        let continuation: CheckedContinuation<RedeemResult, any Error>
    }

    private struct State {
        var pending: [Waiter] = []
        /// Slots of the transactions not running now; a running drain holds one.
        var freeSlots: [Int]
    }

    private let state: Mutex<State>
    let maxBatch: Int
    /// Transactions in flight at once: 1 for SQLite (one writer), a few for PostgreSQL.
    let parallelism: Int

    init(maxBatch: Int, parallelism: Int) {
        self.maxBatch = maxBatch
        self.parallelism = parallelism
        state = Mutex(State(freeSlots: Array((0..<max(1, parallelism)).reversed())))
    }

    /// Queues `item`; `flush` writes a batch and returns one result per item: an error thrown
    /// by `flush` goes to every item of the batch, an error in the results only to its own (a
    /// batch can take two transactions, `Issuer.redeemOne`). Its second argument is the batch's
    /// slot, in `0..<parallelism`: no two batches running at once have the same one (the issuer
    /// gives each slot its own float shard).
    func submit(
        _ item: PendingRedemption,
        flush: @escaping @Sendable ([PendingRedemption], Int) async throws -> [Result<RedeemResult, any Error>]
    ) async throws -> RedeemResult {
        try await withCheckedThrowingContinuation { continuation in
            let slot = state.withLock { s -> Int? in
                s.pending.append(Waiter(item: item, continuation: continuation))
                return s.freeSlots.popLast()
            }
            if let slot { Task { await self.drain(slot: slot, flush) } }
        }
    }

    private func drain(
        slot: Int, _ flush: @escaping @Sendable ([PendingRedemption], Int) async throws -> [Result<RedeemResult, any Error>]
    ) async {
        while true {
            let batch = state.withLock { s -> [Waiter] in
                let take = Array(s.pending.prefix(maxBatch))
                s.pending.removeFirst(take.count)
                if take.isEmpty { s.freeSlots.append(slot) }
                return take
            }
            if batch.isEmpty { return }
            do {
                let results = try await flush(batch.map(\.item), slot)
                // Every waiter must be resumed exactly once, or its request hangs forever.
                guard results.count == batch.count else { throw RedemptionQueueError.resultCountMismatch }
                for (waiter, result) in zip(batch, results) { waiter.continuation.resume(with: result) }
            } catch {
                for waiter in batch { waiter.continuation.resume(throwing: error) }
            }
        }
    }
}

enum RedemptionQueueError: Error { case resultCountMismatch }

/// Redemption batches by how they were written: in one statement outside a transaction (clean
/// batches on PostgreSQL, `Issuer.commitInOneStatement`) or in a transaction (`Issuer.writeBatch`),
/// a batch tried the first way and refused counting once each way.
final class RedemptionBatchCounts: Sendable {
    let committedAlone = Atomic<Int>(0)
    let inTransaction = Atomic<Int>(0)
}
