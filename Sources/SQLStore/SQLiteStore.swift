import CSQLite
import Foundation

// Composite macros in sqlite3.h that Swift cannot import: SQLITE_CONSTRAINT | (n << 8).
private let constraintPrimaryKey: Int32 = 19 | (6 << 8)
private let constraintUnique: Int32 = 19 | (8 << 8)
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// SQLite behind the async SQL interface: one connection, WAL journal, `synchronous = FULL`,
/// transactions serialized by an async lock and started with `BEGIN IMMEDIATE` (so several
/// processes sharing the file queue on SQLite's lock with a busy timeout instead of failing).
public final class SQLiteStore: SQLDatabase, @unchecked Sendable {
    // Only touched while `lock` is held.
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// Whether the connection is at `synchronous = FULL`. A durable transaction never starts
    /// without it, even if restoring it after a non-durable one failed.
    private var synchronousFull = true
    private let lock = AsyncLock()
    public let path: String
    public var dialect: SQLDialect { .sqlite }

    /// Opens (creating if needed) the database file.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLError.failed("cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON"] {
            try Self.exec(db, pragma)
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    public func close() async {}

    public func transaction<T: Sendable>(durable: Bool, _ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await lock.withLock {
            // The synchronous level can only change outside a transaction; we hold the lock.
            if durable != synchronousFull {
                try Self.exec(handle, durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = OFF")
                synchronousFull = durable
            }
            try Self.exec(handle, "BEGIN IMMEDIATE")
            do {
                let result = try await body(Connection(database: self))
                try Self.exec(handle, "COMMIT")
                return result
            } catch {
                try? Self.exec(handle, "ROLLBACK")
                throw error
            }
        }
    }

    struct Connection: SQLConnection {
        let database: SQLiteStore
        var dialect: SQLDialect { .sqlite }

        func execute(_ sql: String, _ binds: [any SQLBindable]) async throws {
            _ = try database.run(sql, binds, collect: false)
        }

        func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            try database.run(sql, binds, collect: true)
        }
    }

    private func run(_ sql: String, _ binds: [any SQLBindable], collect: Bool) throws -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, bind) in binds.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch bind.sqlValue {
            case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
            case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, SQLITE_TRANSIENT)
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count), SQLITE_TRANSIENT) }
            case .null: rc = sqlite3_bind_null(statement, index)
            }
            guard rc == SQLITE_OK else { throw error(rc, sql) }
        }
        var rows: [SQLRow] = []
        let columnCount = sqlite3_column_count(statement)
        let names = (0..<columnCount).map { String(cString: sqlite3_column_name(statement, $0)) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc, sql) }
            guard collect else { continue }
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for c in 0..<columnCount {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, c)))
                case SQLITE_TEXT: values.append(.text(String(cString: sqlite3_column_text(statement, c))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, c))
                    if let p = sqlite3_column_blob(statement, c), count > 0 {
                        values.append(.blob(Array(UnsafeRawBufferPointer(start: p, count: count))))
                    } else {
                        values.append(.blob([]))
                    }
                case SQLITE_FLOAT: values.append(.integer(Int64(sqlite3_column_double(statement, c))))
                default: values.append(.null)
                }
            }
            rows.append(SQLRow(columns: names, values: values))
        }
        return rows
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql) }
        statements[sql] = statement
        return statement
    }

    private func error(_ rc: Int32, _ sql: String) -> SQLError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch rc & 0xFF {
        case SQLITE_CONSTRAINT where [constraintUnique, constraintPrimaryKey].contains(sqlite3_extended_errcode(handle)):
            return .uniqueViolation(message)
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(message)
        default: return .failed("\(message) (in: \(sql.prefix(80)))")
        }
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error \(rc)"
            sqlite3_free(message)
            if rc & 0xFF == SQLITE_BUSY { throw SQLError.busy(text) }
            throw SQLError.failed("\(sql): \(text)")
        }
    }
}
