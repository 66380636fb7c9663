import CSQLite
import Foundation

// Composite macros in sqlite3.h that Swift cannot import: SQLITE_CONSTRAINT | (n << 8).
private let constraintPrimaryKey: Int32 = 19 | (6 << 8)
private let constraintUnique: Int32 = 19 | (8 << 8)
/// The C `close`, unreachable by that name inside `SQLiteStore` (which has its own `close`).
private func closeDescriptor(_ fd: Int32) { close(fd) }
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

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

    /// The page cache each connection opens with (`PRAGMA cache_size`: negative means KiB, so 64 MB).
    public static let cacheSize = -65_536

    /// Opens (creating if needed) the database file. The file is private to this user: see
    /// `makePrivate`.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws {
        self.path = path
        try Self.makePrivate(path)
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLError.failed("cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        // A 64 MB page cache (SQLite's default is 2 MB; pages are allocated only as they are
        // used): the spent set's keys are hashes, so each redemption touches a different leaf
        // of several indexes, and a large spent set must not send every commit back to the OS
        // for pages (docs/server.md, "What shapes the figures").
        for pragma in [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON",
            "PRAGMA cache_size = \(Self.cacheSize)",
        ] {
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
            case .text(let s):
                // The byte count, not -1: with -1 SQLite stops at the first NUL and a text
                // holding one would be stored (and compared) truncated.
                let utf8 = Array(s.utf8)
                rc = utf8.withUnsafeBytes {
                    sqlite3_bind_text64(
                        statement, index,
                        ($0.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)).assumingMemoryBound(to: CChar.self),
                        sqlite3_uint64(utf8.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            case .blob(let b):
                rc = b.withUnsafeBytes {
                    sqlite3_bind_blob64(
                        statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(b.count),
                        sqliteTransient)
                }
            case .null: rc = sqlite3_bind_null(statement, index)
            case .blobs, .integers, .texts: throw SQLError.failed("array parameters are PostgreSQL only: \(sql)")
            }
            guard rc == SQLITE_OK else { throw error(rc, sql) }
        }
        var rows: [SQLRow] = []
        let columnCount = sqlite3_column_count(statement)
        let names = (0..<columnCount).map { c in sqlite3_column_name(statement, c).map { String(cString: $0) } ?? "column\(c)" }
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
                case SQLITE_TEXT:
                    // By byte count, so a text holding a NUL is read whole.
                    let count = Int(sqlite3_column_bytes(statement, c))
                    if let p = sqlite3_column_text(statement, c), count > 0 {
                        values.append(.text(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)))
                    } else {
                        values.append(.text(""))
                    }
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, c))
                    if let p = sqlite3_column_blob(statement, c), count > 0 {
                        values.append(.blob(Array(UnsafeRawBufferPointer(start: p, count: count))))
                    } else {
                        values.append(.blob([]))
                    }
                case SQLITE_FLOAT:
                    // No column of ours holds a REAL; one appears only where SQLite turned an
                    // overflowing integer sum into a float. Converting it could trap (out of
                    // Int64 range) or round money, so it is an error, never a value.
                    throw SQLError.nonInteger(column: names[Int(c)], value: sqlite3_column_double(statement, c))
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

    /// The file holds password hashes, sessions and the ledger, so only its owner may read
    /// it, whatever the umask. A new file is created 0600 before SQLite opens it, and SQLite
    /// creates the -wal and -shm files with the database file's mode. An existing file (or its
    /// -wal/-shm) that group or others can access is narrowed to owner-only; if that fails the
    /// open fails, rather than serve from a file others can read.
    static func makePrivate(_ path: String) throws {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            closeDescriptor(fd)
            return
        }
        guard errno == EEXIST else { throw SQLError.failed("cannot create \(path): \(String(cString: strerror(errno)))") }
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            guard chmod(file, info.st_mode & 0o700) == 0 else {
                throw SQLError.failed(
                    "\(file) is open to other users and cannot be restricted (\(String(cString: strerror(errno)))); run chmod 600 on it"
                )
            }
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
