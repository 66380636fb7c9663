import OfflineNotes
import SQLStore

/// Double-entry postings. Every balance change is journal rows whose amounts sum to zero,
/// written in the caller's transaction together with the cached `account.balance`.
///
/// Every change is overflow-checked: a balance (or `issued_note.redeemed`) that would leave
/// the signed 64-bit range is refused with `IssuerError.amountOverflow` before it is written.
/// The database could not be trusted to refuse it: SQLite turns an overflowing `balance + ?`
/// into a REAL (schema v3 refuses those too), PostgreSQL fails with a generic error.
///
/// A hot system account (the float, which every purchase and every redemption batch moves)
/// keeps part of its cached balance in `balance_shard` rows: its balance is `account.balance`
/// plus the sum of its shards (`balance(of:)`). A posting marked `sharded` adds to one shard
/// instead of the account row, so concurrent transactions, and several server processes, do
/// not queue on one row lock held until each one's COMMIT. Only system accounts are
/// sharded: a user's balance is the account row alone, which the non-negative checks and the
/// debtor queries read.
enum Ledger {
    /// Shard rows per sharded account (schema v8 creates them; changing this needs a migration).
    static let shardCount = 16

    /// SQL for the balance of the account whose row is `alias`: its row plus its shards. Each
    /// part is kept in Int64 by the writers; a total outside it (impossible for the float, which
    /// is at most what was paid in plus debts) fails the read loudly on both engines (SQLite's
    /// integer overflow, PostgreSQL's BIGINT cast) rather than giving a wrong figure.
    static func balance(of alias: String) -> String {
        // The row is not cast: a REAL an old version wrote must still read as the typed error.
        "(\(alias).balance + COALESCE((SELECT CAST(SUM(s.balance) AS BIGINT) FROM balance_shard s WHERE s.account_id = \(alias).id), 0))"
    }

    /// SQL for a system account's balance, as a scalar subquery.
    static func balance(of account: SystemAccount) -> String {
        "(SELECT \(balance(of: "sa")) FROM account sa WHERE sa.email = '\(account.email)')"
    }

    /// An account that must not go negative holds less than a posting takes. Thrown without
    /// a currency; `Issuer.transaction` turns it into `IssuerError.insufficientFunds`.
    struct Shortfall: Error {
        let balance: Int64
        let requested: UInt64
    }

    /// The lowest and highest value `column` may hold before `column + delta`, so that the sum
    /// stays in Int64. Used in WHERE clauses: the addition is then never evaluated out of range.
    static func bounds(adding delta: Int64) -> (low: Int64, high: Int64) {
        // Int64.min - delta (delta < 0) and Int64.max - delta (delta > 0) cannot overflow.
        (delta < 0 ? Int64.min - delta : Int64.min, delta > 0 ? Int64.max - delta : Int64.max)
    }

    /// `a + b`, or `amountOverflow`.
    static func add(_ a: Int64, _ b: Int64) throws(IssuerError) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw .amountOverflow }
        return sum
    }

    struct Posting {
        let account: Int64
        let amount: Int64
        /// Refuse the entry (insufficientFunds) if this account would go below zero.
        var mustStayNonNegative = false
        /// Add to one of the account's `balance_shard` rows rather than to its row (system
        /// accounts only; never with `mustStayNonNegative`).
        var sharded = false
    }

    /// Balance changes collected during a batch and applied once at its end, in account order:
    /// hot rows (the float) stay locked only for the end of the transaction, and every batch
    /// locks accounts in the same order, so parallel batches do not deadlock on them.
    final class Deltas {
        var byAccount: [Int64: Int64] = [:]
        /// Changes to sharded accounts, all applied to shard `shard`.
        var bySharded: [Int64: Int64] = [:]
        /// The shard this batch writes: parallel batches of one process use different ones.
        let shard: Int

        /// Value redeemed from the float per note (`issued_note.redeemed`).
        var redeemedByNote: [[UInt8]: Int64] = [:]
        /// Journal rows (entry, account, amount, kind, reference, created_at) written in bulk.
        var journal: [[any SQLBindable]] = []

        init(shard: Int) {
            self.shard = shard % Ledger.shardCount
        }

        static let journalColumns = "entry, account_id, amount, kind, reference, created_at"

        /// The batch's changes in the order their rows are locked: accounts, then notes (each
        /// in key order), then shards (every transaction locks account rows before shard rows).
        private func changes() -> Changes {
            Changes(
                accounts: byAccount.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map {
                    ($0.key as any SQLBindable, $0.value)
                },
                notes: redeemedByNote.filter { $0.value != 0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map {
                    ($0.key as any SQLBindable, $0.value)
                },
                shards: bySharded.filter { $0.value != 0 }.sorted { $0.key < $1.key })
        }

        struct Changes {
            let accounts: [(any SQLBindable, Int64)]
            let notes: [(any SQLBindable, Int64)]
            let shards: [(key: Int64, value: Int64)]
        }

        private func reset() {
            byAccount = [:]
            bySharded = [:]
            redeemedByNote = [:]
            journal = []
        }

        func apply(_ conn: any SQLConnection) async throws {
            let changes = changes()
            if conn.dialect == .postgres {
                try await applyInOneStatement(conn, changes)
            } else {
                for start in stride(from: 0, to: journal.count, by: 500) {
                    let chunk = journal[start..<min(start + 500, journal.count)]
                    try await conn.execute(
                        "INSERT INTO journal(\(Self.journalColumns)) VALUES "
                            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "),
                        chunk.flatMap { $0 })
                }
                try await Self.addAllOnSQLite(
                    conn, table: "account", key: "id", keyKind: .bigint, column: "balance", changes.accounts)
                try await Self.addAllOnSQLite(
                    conn, table: "issued_note", key: "note_id", keyKind: .bytea, column: "redeemed", changes.notes)
                for (account, delta) in changes.shards {
                    try await Ledger.addToShard(conn, account: account, shard: shard, delta)
                }
            }
            reset()
        }

        /// A batch's changes as data-modifying CTEs of one statement, and the number of rows
        /// each update must reach: a short count is an overflow (a row out of its bounds is not
        /// updated) or a note refunded after expiry since it was read (`swept`; the sweep locks
        /// the notes it refunds, so this is decided by whichever commits first).
        struct Statement {
            var ctes: [String] = []
            var binds: [any SQLBindable] = []
            var counts: [(column: String, expected: Int)] = []
        }

        private func statement(_ changes: Changes) throws -> Statement {
            var out = Statement()
            if let part = try Ledger.addAllPart(
                "a", table: "account", key: "id", keyKind: .bigint, column: "balance", changes.accounts)
            {
                out.ctes += part.ctes
                out.binds += part.binds
                out.counts.append(("a_upd", changes.accounts.count))
            }
            if let part = try Ledger.addAllPart(
                "n", table: "issued_note", key: "note_id", keyKind: .bytea, column: "redeemed", changes.notes,
                condition: "issued_note.swept = 0")
            {
                out.ctes += part.ctes
                out.binds += part.binds
                out.counts.append(("n_upd", changes.notes.count))
            }
            if !changes.shards.isEmpty {
                let rows = changes.shards.map { change -> [any SQLBindable] in
                    let (low, high) = Ledger.bounds(adding: change.value)
                    return [change.key, change.value, low, high]
                }
                let bulk = try BulkColumns(
                    rows, columns: [.init(.bigint), .init(.bigint), .init(.bigint), .init(.bigint)], alias: "s")
                out.ctes.append("s_v(k, delta, low, high) AS (SELECT \(bulk.select) FROM \(bulk.from))")
                out.ctes.append(
                    """
                    s_upd AS (UPDATE balance_shard SET balance = balance_shard.balance + s_v.delta FROM s_v
                    WHERE balance_shard.account_id = s_v.k AND balance_shard.shard = CAST(? AS BIGINT)
                    AND balance_shard.balance BETWEEN s_v.low AND s_v.high RETURNING balance_shard.account_id)
                    """)
                out.binds += bulk.binds + [Int64(shard)]
                out.counts.append(("s_upd", changes.shards.count))
            }
            if !journal.isEmpty {
                let bulk = try BulkColumns(
                    journal,
                    columns: [
                        .init(.bytea), .init(.bigint), .init(.bigint), .init(.text), .init(.bytea, nullable: true),
                        .init(.bigint),
                    ], alias: "j")
                out.ctes.append("j_ins AS (INSERT INTO journal(\(Self.journalColumns)) SELECT \(bulk.select) FROM \(bulk.from))")
                out.binds += bulk.binds
            }
            return out
        }

        /// PostgreSQL: the journal rows and every balance change of the batch in one statement
        /// (each part a data-modifying CTE), not four: each statement is a round trip, and round
        /// trips are most of a batch's fixed cost (docs/performance.md, "Where a redemption's
        /// time goes").
        /// The locks come in the order the separate statements took them: the accounts (in key
        /// order, by their `locked` CTE), then the notes, then the shards, because the final
        /// SELECT reads the three counts in that order and PostgreSQL runs a CTE when it is first
        /// read; the journal insert, read by nothing, runs after them, and its foreign-key locks
        /// (KEY SHARE) do not conflict with FOR NO KEY UPDATE. Any overflow leaves a count short
        /// and throws, which rolls the whole batch back, as before; so does a note the expiry
        /// sweep refunded since the batch's lookup, as `SQLError.retryable`.
        private func applyInOneStatement(_ conn: any SQLConnection, _ changes: Changes) async throws {
            let statement = try statement(changes)
            guard !statement.ctes.isEmpty else { return }
            let counts = statement.counts
            let select =
                counts.isEmpty
                ? "SELECT 0 AS none"
                : "SELECT "
                    + counts.map { "(SELECT CAST(COUNT(*) AS BIGINT) FROM \($0.column)) AS \($0.column)" }.joined(separator: ", ")
            guard
                let row = try await conn.query("WITH " + statement.ctes.joined(separator: ",\n") + "\n" + select, statement.binds)
                    .first
            else {
                throw IssuerError.storage("the batch's balance statement returned no row")
            }
            for (column, expected) in counts where try row.int(column) != expected {
                if column == "n_upd",
                    try await conn.queryOne(
                        "SELECT 1 AS swept FROM issued_note WHERE note_id = ANY(CAST(? AS BYTEA[])) AND swept <> 0",
                        SQLValue.blobs(Array(redeemedByNote.keys))) != nil
                {
                    // The expiry sweep refunded a note after the batch read it: run the batch
                    // again, and its lookup answers the note's chains `expired`.
                    throw SQLError.retryable("a note was refunded after expiry while the batch was written")
                }
                if column == "s_upd" {
                    // As `addToShard` tells them apart: a missing row is a broken schema, not an overflow.
                    for (account, _) in changes.shards
                    where try await conn.queryOne(
                        "SELECT shard FROM balance_shard WHERE account_id = ? AND shard = ?", account, Int64(shard)) == nil
                    {
                        throw IssuerError.storage("balance shard \(shard) of account \(account) missing; migrations did not run")
                    }
                }
                throw IssuerError.amountOverflow
            }
        }

        /// PostgreSQL, outside a transaction (`SQLDatabase.outsideTransaction`): `leading`, CTEs
        /// whose one named `leading.name` must return `leading.expected` rows, and then the
        /// batch's journal and balance changes, all in **one statement that commits alone**. Every
        /// count, the leading one's included, is checked inside the statement: if any falls
        /// short (a row already there, an overflow, a note refunded since it was read, a
        /// missing shard), the statement fails with `SQLError.failed` and has written nothing.
        /// It never reports why: the caller writes the batch again in a transaction, which does.
        /// The locks come in the order `applyInOneStatement` takes them, after the leading CTE's.
        func applyCommittingAlone(
            _ conn: any SQLConnection, leading: (ctes: [String], name: String, binds: [any SQLBindable], expected: Int)
        ) async throws {
            var statement = try statement(changes())
            statement.ctes.insert(contentsOf: leading.ctes, at: 0)
            statement.binds.insert(contentsOf: leading.binds, at: 0)
            let counts = [(leading.name, leading.expected)] + statement.counts
            // The expected counts are parameters, so the text (and its prepared plan) is the same
            // for every batch. The CAST of the message fails the statement: PostgreSQL has no
            // way to raise an error from plain SQL, and the CASE is not a constant, so it is not
            // folded at planning.
            let all = counts.map { "(SELECT COUNT(*) FROM \($0.0)) = CAST(? AS BIGINT)" }.joined(separator: " AND ")
            let select = "SELECT CAST(CASE WHEN \(all) THEN '0' ELSE '\(Self.shortCountMessage)' END AS BIGINT) AS ok"
            _ = try await conn.query(
                "WITH " + statement.ctes.joined(separator: ",\n") + "\n" + select,
                statement.binds + counts.map { Int64($0.1) as any SQLBindable })
            reset()
        }

        /// What PostgreSQL's error quotes when `applyCommittingAlone` refuses a batch.
        static let shortCountMessage = "offline-wallet: a count of the batch fell short, nothing was written"

        /// SQLite: `column += delta` for many rows in one UPDATE … FROM VALUES, refusing
        /// (`amountOverflow`, which rolls the whole batch back) if any row would leave Int64: such
        /// a row fails its bounds and is not updated, and the count shows it. (PostgreSQL writes
        /// a batch's changes with `applyInOneStatement`.)
        static func addAllOnSQLite(
            _ conn: any SQLConnection, table: String, key: String, keyKind: BulkColumns.Kind, column: String,
            _ changes: [(any SQLBindable, Int64)]
        ) async throws {
            guard !changes.isEmpty else { return }
            let keyType = keyKind == .bigint ? "BIGINT" : "BLOB"
            let values = Array(
                repeating: "(CAST(? AS \(keyType)), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))",
                count: changes.count
            )
            .joined(separator: ", ")
            let binds = changes.flatMap { change -> [any SQLBindable] in
                let (low, high) = Ledger.bounds(adding: change.1)
                return [change.0, change.1, low, high]
            }
            let updated = try await conn.query(
                """
                UPDATE \(table) SET \(column) = \(column) + v.column2 FROM (VALUES \(values)) AS v
                WHERE \(table).\(key) = v.column1 AND \(table).\(column) BETWEEN v.column3 AND v.column4 RETURNING \(table).\(key)
                """, binds)
            guard updated.count == changes.count else { throw IssuerError.amountOverflow }
        }
    }

    /// Writes one balanced entry. With `deferred`, balance updates (except those that must not
    /// go negative, which are checked at once) are collected there instead.
    static func post(
        _ conn: any SQLConnection, kind: String, reference: [UInt8]?, postings: [Posting], entry: [UInt8], now: Int64,
        deferred: Deltas? = nil
    ) async throws {
        // Int64.min has no negation: refused with the overflows (no amount is near it).
        guard postings.allSatisfy({ $0.amount != Int64.min }) else { throw IssuerError.amountOverflow }
        guard try postings.reduce(Int64(0), { try add($0, $1.amount) }) == 0 else {
            throw IssuerError.storage("unbalanced journal entry \(kind)")
        }
        guard postings.allSatisfy({ !($0.sharded && $0.mustStayNonNegative) }) else {
            throw IssuerError.storage("a sharded account cannot be kept non-negative (\(kind))")
        }
        // Sharded postings last: every transaction locks account rows before shard rows.
        for p in postings.filter({ !$0.sharded }) + postings.filter(\.sharded) {
            if p.sharded {
                if let deferred {
                    deferred.bySharded[p.account] = try add(deferred.bySharded[p.account, default: 0], p.amount)
                } else {
                    try await addToShard(conn, account: p.account, shard: Int.random(in: 0..<shardCount), p.amount)
                }
            } else if p.mustStayNonNegative && p.amount < 0 {
                // `balance >= -amount` rather than `balance + amount >= 0`: no addition to overflow.
                let updated = try await conn.query(
                    "UPDATE account SET balance = balance + ? WHERE id = ? AND balance >= ? RETURNING balance",
                    p.amount, p.account, -p.amount)
                if updated.isEmpty {
                    let row = try await conn.queryOne("SELECT balance FROM account WHERE id = ?", p.account)
                    throw Shortfall(balance: try row?.int("balance") ?? 0, requested: p.amount.magnitude)
                }
            } else if let deferred {
                deferred.byAccount[p.account] = try add(deferred.byAccount[p.account, default: 0], p.amount)
            } else {
                let (low, high) = bounds(adding: p.amount)
                let updated = try await conn.query(
                    "UPDATE account SET balance = balance + ? WHERE id = ? AND balance BETWEEN ? AND ? RETURNING id",
                    p.amount, p.account, low, high)
                if updated.isEmpty {
                    guard try await conn.queryOne("SELECT id FROM account WHERE id = ?", p.account) != nil else {
                        throw IssuerError.accountNotFound
                    }
                    throw IssuerError.amountOverflow
                }
            }
        }
        if let deferred {
            for p in postings { deferred.journal.append([entry, p.account, p.amount, kind, reference, now]) }
            return
        }
        // All postings in one statement: one round trip on PostgreSQL.
        var binds: [any SQLBindable] = []
        for p in postings { binds += [entry, p.account, p.amount, kind, reference, now] as [any SQLBindable] }
        try await conn.execute(
            "INSERT INTO journal(entry, account_id, amount, kind, reference, created_at) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: postings.count).joined(separator: ", "),
            binds)
    }

    /// PostgreSQL CTEs for `column += delta` on many rows of `table`, named `<name>_v` (the
    /// changes), `<name>_locked` (the rows locked in key order: a sorted scan under FOR NO KEY
    /// UPDATE, which the update joins, so it only ever updates rows it holds) and `<name>_upd`
    /// (the update, returning a row per key it changed: fewer than the changes means one would
    /// have left Int64). Nil without changes. Concurrent batches so lock in the same order. The
    /// lock is FOR NO KEY UPDATE (what an UPDATE of a non-key column takes): FOR UPDATE would
    /// also conflict with the KEY SHARE locks that journal inserts take through their foreign
    /// key, and two batches would deadlock on each other's journal rows. `condition` is one
    /// more the updated rows must meet (a row that fails it is not updated, and counts short).
    static func addAllPart(
        _ name: String, table: String, key: String, keyKind: BulkColumns.Kind, column: String,
        _ changes: [(any SQLBindable, Int64)],
        condition: String? = nil
    ) throws -> (ctes: [String], binds: [any SQLBindable])? {
        guard !changes.isEmpty else { return nil }
        let rows = changes.map { change -> [any SQLBindable] in
            let (low, high) = bounds(adding: change.1)
            return [change.0, change.1, low, high]
        }
        let bulk = try BulkColumns(rows, columns: [.init(keyKind), .init(.bigint), .init(.bigint), .init(.bigint)], alias: name)
        let v = "\(name)_v", locked = "\(name)_locked"
        return (
            [
                "\(v)(k, delta, low, high) AS (SELECT \(bulk.select) FROM \(bulk.from))",
                "\(locked) AS (SELECT t.\(key) AS k FROM \(table) t JOIN \(v) ON t.\(key) = \(v).k ORDER BY t.\(key) FOR NO KEY UPDATE OF t)",
                """
                \(name)_upd AS (UPDATE \(table) SET \(column) = \(table).\(column) + \(v).delta FROM \(v) JOIN \(locked) ON \(locked).k = \(v).k
                WHERE \(table).\(key) = \(v).k AND \(table).\(column) BETWEEN \(v).low AND \(v).high\(condition.map { " AND " + $0 } ?? "") RETURNING \(table).\(key))
                """,
            ], bulk.binds
        )
    }

    /// `balance_shard.balance += delta` for one shard, refusing (`amountOverflow`) a sum that
    /// would leave Int64. The one-row UPDATE takes the row's lock itself (nothing references
    /// `balance_shard`, so no foreign-key lock can meet it).
    static func addToShard(_ conn: any SQLConnection, account: Int64, shard: Int, _ delta: Int64) async throws {
        let (low, high) = bounds(adding: delta)
        let updated = try await conn.query(
            "UPDATE balance_shard SET balance = balance + ? WHERE account_id = ? AND shard = ? AND balance BETWEEN ? AND ? RETURNING shard",
            delta, account, Int64(shard), low, high)
        guard updated.isEmpty else { return }
        guard
            try await conn.queryOne("SELECT shard FROM balance_shard WHERE account_id = ? AND shard = ?", account, Int64(shard))
                != nil
        else {
            throw IssuerError.storage("balance shard \(shard) of account \(account) missing; migrations did not run")
        }
        throw IssuerError.amountOverflow
    }

    static func systemAccount(_ conn: any SQLConnection, _ account: SystemAccount) async throws -> Int64 {
        guard let row = try await conn.queryOne("SELECT id FROM account WHERE email = ?", account.email) else {
            throw IssuerError.storage("system account \(account.rawValue) missing; migrations did not run")
        }
        return try row.int("id")
    }
}
