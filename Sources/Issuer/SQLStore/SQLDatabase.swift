/// A value bound to or read from SQL. Only the types both SQLite and PostgreSQL store natively,
/// plus array parameters for PostgreSQL.
public enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null
    /// PostgreSQL only, as a parameter: `BYTEA[]`, `BIGINT[]` and `TEXT[]` (no NULL elements),
    /// so a statement over many rows (`unnest`, `= ANY(?)`) keeps one text whatever their number,
    /// and the server parses and plans a few parameters instead of thousands. SQLite refuses them.
    case blobs([[UInt8]])
    case integers([Int64])
    case texts([String])
}

/// Something that can be bound as a SQL parameter.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Array: SQLBindable where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension UInt64: SQLBindable {
    /// Amounts and times are below 2^63 by protocol rule; larger values are clamped, never wrapped.
    public var sqlValue: SQLValue { .integer(Int64(clamping: self)) }
}
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// Errors of the SQL layer, the same for both databases.
public enum SQLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A UNIQUE or PRIMARY KEY constraint refused the write.
    case uniqueViolation(String)
    /// The database is locked by another process longer than the busy timeout.
    case busy(String)
    /// A deadlock or serialization failure: the transaction was rolled back and may be rerun.
    case retryable(String)
    case missingColumn(String)
    case typeMismatch(column: String, expected: String)
    /// A floating-point value where only integers belong (SQLite stores the result of an
    /// overflowing integer addition as REAL). Never converted: that could trap or round.
    case nonInteger(column: String, value: Double)
    case failed(String)
    /// The connection closed before a statement run outside a transaction
    /// (`SQLDatabase.outsideTransaction`) was answered: whether it committed is unknown.
    case outcomeUnknown(String)

    public var description: String {
        switch self {
        case .uniqueViolation(let m): "unique constraint violated: \(m)"
        case .busy(let m): "database busy: \(m)"
        case .retryable(let m): "transaction conflict, retry: \(m)"
        case .missingColumn(let c): "no column \(c) in result"
        case .typeMismatch(let c, let e): "column \(c) is not \(e)"
        case .nonInteger(let c, let v):
            "column \(c) holds the non-integer value \(v) where only integers belong (an overflowed sum written by an old version; see docs/server.md)"
        case .failed(let m): m
        case .outcomeUnknown(let m):
            "the connection was lost before the database answered, so whether the write committed is unknown: \(m)"
        }
    }
}

/// One result row, read by column name.
public struct SQLRow: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(_ name: String) -> SQLValue? {
        columns.firstIndex(of: name).map { values[$0] }
    }

    public func int(_ name: String) throws -> Int64 {
        guard let v = self[name] else { throw SQLError.missingColumn(name) }
        guard case .integer(let i) = v else { throw SQLError.typeMismatch(column: name, expected: "integer") }
        return i
    }

    public func optionalInt(_ name: String) throws -> Int64? {
        if case .null = self[name] { return nil }
        return try int(name)
    }

    /// A non-negative integer column (amounts, times).
    public func uint(_ name: String) throws -> UInt64 {
        let i = try int(name)
        guard i >= 0 else { throw SQLError.typeMismatch(column: name, expected: "non-negative integer") }
        return UInt64(i)
    }

    public func text(_ name: String) throws -> String {
        guard let v = self[name] else { throw SQLError.missingColumn(name) }
        guard case .text(let s) = v else { throw SQLError.typeMismatch(column: name, expected: "text") }
        return s
    }

    public func optionalText(_ name: String) throws -> String? {
        if case .null = self[name] { return nil }
        return try text(name)
    }

    public func blob(_ name: String) throws -> [UInt8] {
        guard let v = self[name] else { throw SQLError.missingColumn(name) }
        switch v {
        case .blob(let b): return b
        case .null: return []
        default: throw SQLError.typeMismatch(column: name, expected: "blob")
        }
    }

    public func optionalBlob(_ name: String) throws -> [UInt8]? {
        if case .null = self[name] { return nil }
        return try blob(name)
    }
}

/// Which SQL engine is behind a `SQLDatabase`; schema DDL differs slightly, queries do not.
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// Statements run inside one transaction. SQL uses `?` placeholders on both engines and only
/// the shared subset of SQL (ON CONFLICT … DO NOTHING, RETURNING, CAST(… AS BIGINT)).
public protocol SQLConnection {
    var dialect: SQLDialect { get }
    func execute(_ sql: String, _ binds: [any SQLBindable]) async throws
    func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow]
}

extension SQLConnection {
    public func execute(_ sql: String, _ binds: any SQLBindable...) async throws {
        try await execute(sql, binds)
    }

    public func query(_ sql: String, _ binds: any SQLBindable...) async throws -> [SQLRow] {
        try await query(sql, binds)
    }

    public func queryOne(_ sql: String, _ binds: any SQLBindable...) async throws -> SQLRow? {
        try await query(sql, binds).first
    }
}

/// A database that runs closures in transactions. Durable by default: a transaction that
/// returned has been committed to stable storage (SQLite synchronous=FULL, PostgreSQL
/// synchronous_commit=on).
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    /// - Parameter durable: false only for data whose loss in a crash is harmless (rate-limit
    ///   counters): the commit then skips the wait for stable storage. Never for money.
    func transaction<T: Sendable>(durable: Bool, _ body: (any SQLConnection) async throws -> T) async throws -> T
    /// Runs `body` on one connection outside any transaction: each statement is a transaction
    /// of its own, committed durably when it returns, and a statement that fails has written
    /// nothing. For a write that fits in one statement, this saves the round trips of BEGIN
    /// and COMMIT. A statement whose connection is lost before it is answered throws
    /// `SQLError.outcomeUnknown`. Nothing is retried.
    ///
    /// The default runs `body` in one durable transaction, which is stronger (SQLite, where
    /// a transaction costs no round trip).
    func outsideTransaction<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T
    func close() async
}

extension SQLDatabase {
    /// A durable transaction.
    public func transaction<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await transaction(durable: true, body)
    }

    public func outsideTransaction<T: Sendable>(_ body: (any SQLConnection) async throws -> T) async throws -> T {
        try await transaction(durable: true, body)
    }
}
