import Foundation
import GRDB
import Synchronization

extension Wallet {
    /// The wallet's snapshots as they change: the current one at once, then a new one after
    /// every committed change that alters it. Identical consecutive snapshots are not repeated;
    /// a slow consumer gets the latest state, not every intermediate one.
    ///
    /// What is observed:
    /// - every commit made through this instance (GRDB `ValueObservation` over the tables a
    ///   snapshot reads: `setting`, `note_state`, `outgoing_payment`, `history`);
    /// - every commit made through any other `Wallet` instance open on the same database file in
    ///   this process (a sync flow's, a nearby receiver's), forwarded by the instance that wrote.
    ///
    /// What is not observed, so the app calls `refreshSnapshots()` (when it returns to the
    /// foreground, say, or on a timer while a screen shows balances):
    /// - writes by another process (a command-line run, an app extension) on the same file;
    /// - time passing: a note entering the no-spend window before expiry, or expiring, moves
    ///   value between lines of `Balance` without any write.
    ///
    /// Iteration starts the observation; cancelling the consuming task, or dropping the
    /// iterator, stops it. Until `installTrust` has run there is no currency to value notes in,
    /// so nothing is emitted; the first snapshot follows the install. Any other failure to read
    /// ends the sequence with that `WalletError`.
    public func snapshots(recent: Int = 20) -> WalletSnapshots {
        WalletSnapshots(wallet: self, recent: recent)
    }

    /// Makes every snapshot stream on this wallet's file in this process re-read now: for
    /// changes observation cannot see (see `snapshots(recent:)`). Cheap when nothing changed.
    public func refreshSnapshots() {
        WalletChangeHub.refresh(path: databasePath)
    }
}

/// The async sequence returned by `Wallet.snapshots(recent:)`; each iterator is one observation.
public struct WalletSnapshots: AsyncSequence, Sendable {
    public typealias Element = WalletSnapshot
    public typealias Failure = WalletError

    let wallet: Wallet
    let recent: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: SnapshotObservation.start(wallet: wallet, recent: recent))
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<WalletSnapshot, WalletError>>.Iterator
        var last: WalletSnapshot?
        var failed = false

        init(stream: AsyncStream<Result<WalletSnapshot, WalletError>>) {
            base = stream.makeAsyncIterator()
        }

        public mutating func next() async throws(WalletError) -> WalletSnapshot? {
            try await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(WalletError) -> WalletSnapshot? {
            while !failed, let result = await base.next(isolation: actor) {
                switch result {
                case .success(let snapshot):
                    // The stream keeps only the newest element, so a skipped one can leave two
                    // equal ones in a row: drop the repeat here.
                    if snapshot == last { continue }
                    last = snapshot
                    return snapshot
                case .failure(let error):
                    failed = true
                    throw error
                }
            }
            return nil
        }
    }
}

/// One running observation: re-reads the snapshot on a serial queue whenever GRDB reports a
/// change to the tracked tables, another instance committed, or `refreshSnapshots()` asked.
///
/// GRDB's observed value is only the trigger; the snapshot itself is always read afresh on
/// the serial queue. Reads made one after another on one queue are never older than the one
/// before, so a notice from another instance can never be overtaken by a staler value.
enum SnapshotObservation {
    static func start(wallet: Wallet, recent: Int) -> AsyncStream<Result<WalletSnapshot, WalletError>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Result<WalletSnapshot, WalletError>.self, bufferingPolicy: .bufferingNewest(1))
        let queue = DispatchQueue(label: "wallet.snapshots", qos: .userInitiated)
        let state = Mutex<(last: WalletSnapshot?, done: Bool)>((nil, false))

        @Sendable func reread() {
            guard !state.withLock({ $0.done }) else { return }
            let result: Result<WalletSnapshot, WalletError>
            do { result = .success(try wallet.snapshot(recent: recent)) } catch { result = .failure(error) }
            switch result {
            case .failure(.notConfigured):
                return  // No currency yet; installTrust writes `setting` and wakes us.
            case .failure:
                state.withLock { $0.done = true }
                continuation.yield(result)
                continuation.finish()
            case .success(let snapshot):
                let changed = state.withLock { s in
                    guard s.last != snapshot else { return false }
                    s.last = snapshot
                    return true
                }
                if changed { continuation.yield(result) }
            }
        }

        // A burst of commits elsewhere queues one re-read, not one per commit. The flag drops
        // before the read starts, so a commit during the read queues the next one.
        let queued = Mutex(false)
        @Sendable func wake() {
            guard
                queued.withLock({ q in
                    defer { q = true }
                    return !q
                })
            else { return }
            queue.async {
                queued.withLock { $0 = false }
                reread()
            }
        }
        let token = WalletChangeHub.add(.init(pool: ObjectIdentifier(wallet.db), notify: wake), path: wallet.databasePath)
        // The region is fixed and the fetch trivial: GRDB decides *when*, `reread` reads *what*.
        let observation = ValueObservation.tracking(
            regions: Wallet.snapshotTables.map { Table($0) }, fetch: { _ in () })
        let cancellable = observation.start(
            in: wallet.db, scheduling: .async(onQueue: queue),
            onError: { error in
                state.withLock { $0.done = true }
                continuation.yield(.failure(.storage("observation failed: \(error)")))
                continuation.finish()
            },
            onChange: { _ in reread() })  // Already on `queue`; the first call is the initial snapshot.
        continuation.onTermination = { _ in
            state.withLock { $0.done = true }
            cancellable.cancel()
            WalletChangeHub.remove(token, path: wallet.databasePath)
        }
        return stream
    }
}
