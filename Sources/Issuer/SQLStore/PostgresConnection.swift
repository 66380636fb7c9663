import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

// One pooled connection as the SQL interface sees it: statements with their binds, prepared once
// per connection, and a lost connection told apart from a refused statement.

extension PostgresStore {
    struct Connection: SQLConnection {
        let connection: PostgresConnection
        let state: ConnectionStates.State
        let logger: Logger
        var watch: ClosureWatch { state.watch }
        var statements: StatementCache { state.statements }
        /// False under `outsideTransaction`: a lost connection is then `SQLError.outcomeUnknown`.
        var inTransaction = true
        var dialect: SQLDialect { .postgres }

        func execute(_ sql: String, _ binds: [any SQLBindable]) async throws {
            _ = try await run(sql, binds, reuse: true)
        }

        func query(_ sql: String, _ binds: [any SQLBindable]) async throws -> [SQLRow] {
            try await run(sql, binds, reuse: true)
        }

        /// With several hosts, before the connection's first use: refuses (`NotPrimary`) a
        /// connection to a server in recovery, as libpq's target_session_attrs=read-write does.
        func checkPrimary() async throws {
            guard !state.checkedPrimary.load(ordering: .relaxed) else { return }
            let rows = try await run("SELECT pg_is_in_recovery() AS recovering", [], reuse: false)
            guard let row = rows.first, try row.int("recovering") == 0 else {
                try? await connection.close()
                throw NotPrimary()
            }
            state.checkedPrimary.store(true, ordering: .relaxed)
        }

        /// BEGIN, COMMIT, ROLLBACK and SET LOCAL: run as they are, never prepared.
        func control(_ sql: String) async throws {
            _ = try await run(sql, [], reuse: false)
        }

        private func run(_ sql: String, _ binds: [any SQLBindable], reuse: Bool) async throws -> [SQLRow] {
            let values = binds.map(\.sqlValue)
            let rows: [PostgresRow]
            do {
                rows = try await reuse ? reusing(sql, values) : once(sql, values)
            } catch let lost as ConnectionLost {
                if !inTransaction { throw SQLError.outcomeUnknown(lost.why) }
                throw lost
            } catch {
                if connection.isClosed || Self.isConnectionLoss(error) {
                    let lost = ConnectionLost(cause: error)
                    if !inTransaction { throw SQLError.outcomeUnknown(lost.why) }
                    throw lost
                }
                if ServerError(error)?.state == "25006" { state.answeredAsStandby.store(true, ordering: .relaxed) }
                if Self.isStaleStatement(error) {
                    // The transaction is aborted; its rerun prepares the statement afresh.
                    statements.forgetAll()
                    throw SQLError.retryable(
                        "a prepared statement no longer matched its tables (\(ServerError(error)?.message ?? "")): run again")
                }
                throw PostgresStore.translate(error)
            }
            guard let first = rows.first else { return [] }
            // Every row of a result has the same columns: one array, shared by all its rows.
            let names = first.map(\.columnName)
            var out: [SQLRow] = []
            out.reserveCapacity(rows.count)
            for row in rows {
                var values: [SQLValue] = []
                values.reserveCapacity(names.count)
                for cell in row { values.append(try Self.value(cell)) }
                out.append(SQLRow(columns: names, values: values))
            }
            return out
        }

        /// Runs `sql` as the connection's unnamed statement: parsed and planned for this run only.
        private func once(_ sql: String, _ values: [SQLValue]) async throws -> [PostgresRow] {
            var bindings = PostgresBindings(capacity: values.count)
            for value in values { bindings.append(try Self.data(value)) }
            let query = PostgresQuery(unsafeSQL: Self.numberPlaceholders(sql), binds: bindings)
            return try await Self.untilClosed(connection, watch) { connection.query(query, logger: logger) }.rows
        }

        /// Runs `sql` as a statement prepared on this connection, preparing it the second time the
        /// connection sees it (parsing and planning anew was half of PostgreSQL's cost
        /// per redemption batch). A statement seen once runs unnamed, with no extra round trip.
        private func reusing(_ sql: String, _ values: [SQLValue]) async throws -> [PostgresRow] {
            let key = Self.key(sql, values)
            switch statements.use(key) {
            case .unnamed:
                return try await once(sql, values)
            case .prepared(let statement):
                return try await run(statement, values)
            case .prepare:
                let text = Self.numberPlaceholders(sql, typedAs: values)
                let statement = try await Self.untilClosed(connection, watch) { connection.prepare(query: text) }
                if let displaced = statements.keep(statement, for: key), !connection.isClosed {
                    // Closed on the server in the background; a failure leaves only its memory there.
                    _ = displaced.deallocate()
                }
                return try await run(statement, values)
            }
        }

        private func run(_ statement: PreparedQuery, _ values: [SQLValue]) async throws -> [PostgresRow] {
            let data = try values.map(Self.data)
            return try await Self.untilClosed(connection, watch) { statement.execute(data) }
        }

        /// What a prepared statement is kept under: its text and the type of each value bound to
        /// it (a statement prepared for a number must not receive text, nor one that left a
        /// parameter's type to the server receive anything but NULL there).
        static func key(_ sql: String, _ values: [SQLValue]) -> String {
            var key = sql
            key.unicodeScalars.append("\u{0}")
            for value in values {
                switch value {
                case .integer: key.unicodeScalars.append("i")
                case .text: key.unicodeScalars.append("t")
                case .blob: key.unicodeScalars.append("b")
                case .null: key.unicodeScalars.append("n")
                case .blobs: key.unicodeScalars.append("B")
                case .integers: key.unicodeScalars.append("I")
                case .texts: key.unicodeScalars.append("T")
                }
            }
            return key
        }

        /// The cast that types a parameter in a prepared statement's text. An unnamed statement
        /// declares each parameter's type in its Parse message; postgres-nio prepares with none
        /// declared, so the text carries them, and the server infers the same types as before.
        /// NULL declares none in either case.
        static func cast(_ value: SQLValue) -> String {
            switch value {
            case .integer: "::int8"
            case .text: "::text"
            case .blob: "::bytea"
            case .null: ""
            case .blobs: "::bytea[]"
            case .integers: "::int8[]"
            case .texts: "::text[]"
            }
        }

        /// A value as both paths bind it: binary, with its type (none for NULL), which an unnamed
        /// statement declares in its Parse message and a prepared one carries as a cast (`cast(_:)`).
        static func data(_ value: SQLValue) throws -> PostgresData {
            switch value {
            case .integer(let v): try encoded(v)
            case .text(let s): try encoded(s)
            case .blob(let b): try encoded(ByteBuffer(bytes: b))
            case .null: PostgresData.null
            case .blobs(let v): try encoded(v.map { ByteBuffer(bytes: $0) })
            case .integers(let v): try encoded(v)
            case .texts(let v): try encoded(v)
            }
        }

        private static func encoded<T: PostgresEncodable>(_ value: T) throws -> PostgresData {
            var buffer = ByteBuffer()
            try value.encode(into: &buffer, context: .default)
            return PostgresData(type: T.psqlType, formatCode: T.psqlFormat, value: buffer)
        }

        /// Runs the statement `start` writes but gives up as soon as the connection closes.
        /// postgres-nio 1.33.2 writes a statement to the channel with no write promise; once the
        /// channel has closed, its handlers are gone and the write fails unseen, so the
        /// statement's own promise is never completed and awaiting it never ends. The channel
        /// removes its handlers and completes `closeFuture` in the same event-loop turn, and a
        /// statement written before that is failed by the handler, so one of the two always answers.
        ///
        /// The statement is one of postgres-nio's future-based calls (all rows collected on the
        /// event loop), and whichever of its future and the closure comes first resumes the caller
        /// straight from the event loop: no task per statement. A statement the closure beat is
        /// simply never answered; nothing waits for it.
        static func untilClosed<T: Sendable>(
            _ connection: PostgresConnection, _ watch: ClosureWatch, _ start: () -> EventLoopFuture<T>
        ) async throws -> T {
            if connection.isClosed { throw ConnectionLost(cause: nil) }
            return try await withCheckedThrowingContinuation { continuation in
                let outcome = FirstOutcome(continuation)
                guard let token = watch.add({ outcome.resume(with: .failure(ConnectionLost(cause: nil))) }) else {
                    outcome.resume(with: .failure(ConnectionLost(cause: nil)))
                    return
                }
                start().whenComplete { result in
                    watch.remove(token)
                    outcome.resume(with: result.mapError { $0 })
                }
            }
        }

        /// Connection failures as postgres-nio reports them (in either of its error types), and
        /// the server's own notice that it ends the session (57P01 from pg_terminate_backend,
        /// 57P02/57P03, class 08).
        static func isConnectionLoss(_ error: any Error) -> Bool {
            if let psql = error as? PSQLError,
                [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(psql.code)
            {
                return true
            }
            switch error as? PostgresError {
            case .connectionClosed?: return true
            case .protocol(let message)? where message.contains("connection close"): return true
            default: break
            }
            guard let state = ServerError(error)?.state else { return false }
            return ["57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
        }

        /// The server no longer holds the statement as it was prepared: a table under it changed
        /// the shape of its result (0A000, "cached plan must not change result type"), or the
        /// statement is gone (26000). The cache is stale; the transaction can run again.
        static func isStaleStatement(_ error: any Error) -> Bool {
            guard let server = ServerError(error) else { return false }
            return server.state == "26000" || (server.state == "0A000" && server.message.contains("cached plan"))
        }

        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            var cell = cell
            // postgres-nio asks for every result in binary; its prepared-statement API keeps the
            // format the server's description gave before that choice (text), so say it again.
            cell.format = .binary
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea:
                let buffer = try cell.decode(ByteBuffer.self)
                return .blob(Array(buffer.readableBytesView))
            default: return .text(try cell.decode(String.self))
            }
        }

        /// Rewrites `?` placeholders to PostgreSQL's `$1, $2, …` (the project's SQL has no `?` in
        /// literals), each followed by its value's cast when `values` are given (`cast(_:)`).
        /// Byte by byte: a batch's statement may hold over a thousand placeholders, and walking it
        /// by Character (grapheme breaking) showed in the load profile. `?` is one byte in UTF-8
        /// and never part of another character's encoding.
        static func numberPlaceholders(_ sql: String, typedAs values: [SQLValue]? = nil) -> String {
            var out: [UInt8] = []
            out.reserveCapacity(sql.utf8.count + 16)
            var n = 0
            for byte in sql.utf8 {
                if byte == UInt8(ascii: "?") {
                    n += 1
                    out.append(UInt8(ascii: "$"))
                    out += String(n).utf8
                    if let values, n <= values.count { out += cast(values[n - 1]).utf8 }
                } else {
                    out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
