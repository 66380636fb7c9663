import Foundation
import GRDB
import Synchronization

/// Tells snapshot streams about commits made through *other* `Wallet` instances on the same
/// database file in this process.
///
/// GRDB's `ValueObservation` sees only the writes of the `DatabasePool` it observes, and each
/// `Wallet` opens its own pool: the CLI, a sync flow or a nearby receiver may hold a second
/// instance on the wallet the screen observes. Every wallet's pool forwards its commits here
/// (`attach`), and each stream re-reads when a pool other than its own committed. Writes from
/// another process reach no pool of ours and are not seen (`Wallet.refreshSnapshots()`).
enum WalletChangeHub {
    /// A stream listening for commits on one file, made by any pool but its own.
    struct Listener: Sendable {
        let pool: ObjectIdentifier
        let notify: @Sendable () -> Void
    }

    private static let listeners = Mutex<[String: [UUID: Listener]]>([:])

    /// One key per file, however its path was spelled.
    static func key(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Forwards every commit of `pool` to the listeners of `path`; lasts as long as the pool.
    static func attach(_ pool: DatabasePool, path: String) {
        let forwarder = CommitForwarder(key: key(path), pool: ObjectIdentifier(pool))
        pool.writeWithoutTransaction { db in db.add(transactionObserver: forwarder, extent: .databaseLifetime) }
    }

    /// Calls `listener.notify` after each commit on `path` by another pool, or on `refresh`,
    /// until `remove` is called with the returned token.
    static func add(_ listener: Listener, path: String) -> UUID {
        let token = UUID()
        listeners.withLock { $0[key(path), default: [:]][token] = listener }
        return token
    }

    static func remove(_ token: UUID, path: String) {
        let key = key(path)
        listeners.withLock { all in
            all[key]?[token] = nil
            if all[key]?.isEmpty == true { all[key] = nil }
        }
    }

    /// Wakes every listener on `path` except those observing `exceptPool` (nil: all of them).
    static func post(_ key: String, exceptPool: ObjectIdentifier?) {
        let targets = listeners.withLock { $0[key].map { Array($0.values) } ?? [] }
        for listener in targets where listener.pool != exceptPool { listener.notify() }
    }

    static func refresh(path: String) { post(key(path), exceptPool: nil) }

    /// Streams listening on `path` (tests check that a cancelled stream unregistered).
    static func listenerCount(path: String) -> Int { listeners.withLock { $0[key(path)]?.count ?? 0 } }

    /// Runs on the pool's writer queue after each commit; listeners only schedule a re-read.
    private final class CommitForwarder: TransactionObserver, Sendable {
        let key: String
        let pool: ObjectIdentifier
        init(key: String, pool: ObjectIdentifier) {
            self.key = key
            self.pool = pool
        }
        // Any commit wakes the listeners; they re-read and drop a snapshot that did not change.
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { WalletChangeHub.post(key, exceptPool: pool) }
        func databaseDidRollback(_ db: Database) {}
    }
}
