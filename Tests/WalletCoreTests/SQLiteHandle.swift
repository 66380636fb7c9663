import GRDB

/// Direct database access for tests that simulate corruption behind the engine's back.
final class SQLiteHandle {
    let queue: DatabaseQueue
    init(_ path: String) throws { queue = try DatabaseQueue(path: path) }
    func exec(_ sql: String) throws { try queue.write { try $0.execute(sql: sql) } }
    func close() { try? queue.close() }
}
