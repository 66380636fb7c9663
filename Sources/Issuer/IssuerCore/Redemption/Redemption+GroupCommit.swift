import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore

// Group commit: the redemptions waiting on one shard go to the database together, as one
// statement that commits alone on PostgreSQL when every chain is clean, else in one transaction.

extension Issuer {
    /// One group-commit batch: `writeInTransaction` in a transaction, with its crash points. On
    /// PostgreSQL a batch of clean chains is first tried in one statement that commits alone
    /// (`commitInOneStatement`).
    func commitBatch(_ batch: [PendingRedemption], slot: Int) async throws -> [RedeemResult?] {
        if database.dialect == .postgres {
            switch await commitInOneStatement(batch, slot: slot) {
            case .written(let results):
                redemptionBatches.committedAlone.add(1, ordering: .relaxed)
                CrashPoints.reach(.issuerRedeemCommitted)
                return results
            case .notWritten, .outcomeUnknown:
                // Unknown: the statement may have committed, or may still be running on a
                // connection the server has not yet seen go. The transaction settles it: its
                // insert of the same states meets the statement's rows (waiting for them if
                // they are not committed yet), and a chain already credited is answered so.
                break
            }
        }
        redemptionBatches.inTransaction.add(1, ordering: .relaxed)
        let results = try await database.transaction { conn in
            let results = try await self.writeInTransaction(batch, conn, shard: self.shardOffset + slot)
            CrashPoints.reach(.issuerRedeemInTransaction)
            return results
        }
        CrashPoints.reach(.issuerRedeemCommitted)
        return results
    }

    /// PostgreSQL: writes a clean batch with two statements outside a transaction, the lookup
    /// and one statement that inserts the spent states and writes the journal and every
    /// balance, committing alone (`Ledger.Deltas.applyCommittingAlone`). Clean: every chain's
    /// note is settled by its record and not refunded, its held key is the redeeming
    /// account's, and no two chains touch the same state; each is credited from the float as
    /// `write` would.
    ///
    /// Guarantees: the batch is written whole or not at all, and only `.written` says it was.
    /// The statement rechecks everything the write relies on (each spent state new or the same
    /// spender's transfer, each balance in range, each note unrefunded), since the lookup holds
    /// no lock, and fails whole on any short count. `.notWritten`: nothing was written (not
    /// clean, refused, or failed before an answer). `.outcomeUnknown`: the connection was lost
    /// under the statement. In both cases the caller writes the batch in a transaction, which
    /// answers each chain and meets any rows the statement did commit (`already_credited`).
    func commitInOneStatement(_ batch: [PendingRedemption], slot: Int) async -> CleanBatchOutcome {
        do {
            return try await database.outsideTransaction { conn -> CleanBatchOutcome in
                let now = self.now
                let lookup = try await lookUp(batch, conn)
                var items: [RedemptionItem] = []
                var seen = Set<[UInt8]>()
                for item in batch {
                    guard let state = lookup.settle(item),
                        lookup.swept[state.noteID.bytes] == 0, lookup.owners[state.owner.bytes] == item.account
                    else { return .notWritten }
                    let redemption = RedemptionItem(account: item.account, state: state, entry: item.entry)
                    guard !redemption.states.contains(where: seen.contains) else { return .notWritten }
                    seen.formUnion(redemption.states)
                    items.append(redemption)
                }
                let deltas = Ledger.Deltas(shard: self.shardOffset + slot)
                let float = try await self.systemAccount(conn, .float)
                for item in items { try await self.credit(item, from: float, conn, deltas, now: now) }
                let rows = items.flatMap { self.spentRows($0, now: now) }
                let bulk = try BulkColumns(rows, columns: Self.spentStateBulkColumns)
                // Every row must be new, except a transfer already recorded with the same
                // spender: a chain that extends one redeemed before (the payer paid on from the
                // change) repeats its first hops, and `recordSpends` accepts those too.
                let spent = [
                    "s_rows(\(Self.spentStateColumns)) AS (SELECT \(bulk.select) FROM \(bulk.from))",
                    "s_ins AS (INSERT INTO spent_state(\(Self.spentStateColumns)) SELECT * FROM s_rows ON CONFLICT (state_ref) DO NOTHING RETURNING state_ref)",
                    """
                    s_ok AS (SELECT r.state_ref FROM s_rows r WHERE r.state_ref IN (SELECT state_ref FROM s_ins)
                    OR (r.kind = 'transfer' AND EXISTS (SELECT 1 FROM spent_state e WHERE e.state_ref = r.state_ref AND e.spender = r.spender)))
                    """,
                ]
                CrashPoints.reach(.issuerRedeemInTransaction)
                do {
                    try await deltas.applyCommittingAlone(conn, leading: (spent, "s_ok", bulk.binds, rows.count))
                } catch SQLError.outcomeUnknown {
                    return .outcomeUnknown
                }
                return .written(items.map { .credited(amount: $0.state.amount) })
            }
        } catch {
            // Nothing was answered as written, and a statement that failed wrote nothing.
            return .notWritten
        }
    }

    enum CleanBatchOutcome {
        /// Committed: every chain credited.
        case written([RedeemResult?])
        /// Nothing written: the batch goes to a transaction.
        case notWritten
        /// The connection was lost under the statement: it may have committed.
        case outcomeUnknown
    }

    /// What a batch reads before it writes, in one round trip.
    struct BatchLookup {
        /// `issued_note.swept` and the note's record (`issued_note.note`) by note id: absent for
        /// a note the issuer has no record of.
        var swept: [[UInt8]: Int64] = [:]
        var records: [[UInt8]: [UInt8]] = [:]
        /// The account each held key is registered to.
        var owners: [[UInt8]: Int64] = [:]

        /// The chain's state once its issuer signature is settled: verified already, or its
        /// note equal to the record. Nil: the record does not settle it (see `redeemOne`).
        func settle(_ item: PendingRedemption) -> VerifiedState? {
            item.verified ?? item.chain.matching(record: records[item.chain.noteID.bytes])
        }
    }

    /// The notes' `swept` and records (side 0) and the held keys' accounts (side 1) of a batch.
    func lookUp(_ pending: [PendingRedemption], _ conn: any SQLConnection) async throws -> BatchLookup {
        let notes = Array(Set(pending.map(\.chain.noteID.bytes)))
        let keys = Array(Set(pending.map(\.chain.holder.bytes)))
        var known = BatchLookup()
        let lookup: (notes: String, keys: String, binds: [any SQLBindable])
        if conn.dialect == .postgres {
            lookup = ("= ANY(CAST(? AS BYTEA[]))", "= ANY(CAST(? AS BYTEA[]))", [SQLValue.blobs(notes), SQLValue.blobs(keys)])
        } else {
            lookup = (
                "IN (\(Array(repeating: "?", count: notes.count).joined(separator: ", ")))",
                "IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))", notes + keys
            )
        }
        for row in try await conn.query(
            """
            SELECT 0 AS side, note_id AS k, swept AS v, note AS n FROM issued_note WHERE note_id \(lookup.notes)
            UNION ALL
            SELECT 1 AS side, public_key AS k, account_id AS v, NULL AS n FROM wallet_key WHERE public_key \(lookup.keys)
            """, lookup.binds)
        {
            let key = try row.blob("k")
            if try row.int("side") == 0 {
                known.swept[key] = try row.int("v")
                known.records[key] = try row.blob("n")
            } else {
                known.owners[key] = try row.int("v")
            }
        }
        return known
    }

    static let redeemMarker = Array("offline-wallet/v1/redeemed".utf8) + [0]

    /// One group-commit batch in a handful of statements whatever its size: two lookups, one
    /// bulk insert of every spend and redemption marker, then the journal and balances in bulk.
    /// Items whose states overlap inside the batch (the same chain twice, sibling outputs, a
    /// double spend) are written one by one afterwards, seeing what the batch wrote.
    /// `shard` is the float's balance shard this batch adds to (see `Ledger`).
    ///
    /// A chain whose issuer signature is still unverified is settled against its note's record
    /// first. If the record does not settle it, its result is nil and nothing of it is written:
    /// the caller verifies the signature outside the transaction (see `redeemOne`).
    func writeInTransaction(_ pending: [PendingRedemption], _ conn: any SQLConnection, shard: Int) async throws -> [RedeemResult?]
    {
        let now = self.now
        let deltas = Ledger.Deltas(shard: shard)
        var results = [RedeemResult?](repeating: nil, count: pending.count)

        let lookup = try await lookUp(pending, conn)

        // The issuer signatures: settled by the record, or left to the caller (result nil).
        var batch: [RedemptionItem] = []
        var positions: [Int] = []
        for (i, item) in pending.enumerated() {
            guard let state = lookup.settle(item) else { continue }
            batch.append(RedemptionItem(account: item.account, state: state, entry: item.entry))
            positions.append(i)
        }
        let written = try await writeVerified(batch, conn, deltas, swept: lookup.swept, owners: lookup.owners, now: now)
        for (n, i) in positions.enumerated() { results[i] = written[n] }
        return results
    }

    /// `writeInTransaction` for the chains verified in full, with the batch's lookups.
    func writeVerified(
        _ batch: [RedemptionItem], _ conn: any SQLConnection, _ deltas: Ledger.Deltas, swept: [[UInt8]: Int64],
        owners: [[UInt8]: Int64], now: Int64
    ) async throws -> [RedeemResult] {
        var results = [RedeemResult?](repeating: nil, count: batch.count)
        // Items that touch no state another item touches go through the bulk insert.
        var seen = Set<[UInt8]>()
        var bulk: [Int] = []
        var oneByOne: [Int] = []
        for (i, item) in batch.enumerated() {
            let refs = item.states
            let prepared = KnownBeforeWrite(swept: swept[item.state.noteID.bytes], owner: owners[item.state.owner.bytes])
            guard prepared.swept == 0, prepared.owner == item.account else {
                results[i] = try await write(
                    item, conn, deltas, prepared: KnownBeforeWrite(swept: prepared.swept, owner: prepared.owner, inserted: []))
                continue
            }
            if refs.contains(where: seen.contains) { oneByOne.append(i) } else { bulk.append(i) }
            seen.formUnion(refs)
        }
        let rows = bulk.map { spentRows(batch[$0], now: now) }
        let inserted = try await Self.insertSpent(conn, rows.flatMap { $0 })
        for (n, i) in bulk.enumerated() {
            let mine = Set(rows[n].compactMap { $0.first as? [UInt8] }).intersection(inserted)
            results[i] = try await write(
                batch[i], conn, deltas, prepared: KnownBeforeWrite(swept: 0, owner: batch[i].account, inserted: mine))
        }
        for i in oneByOne {
            results[i] = try await write(
                batch[i], conn, deltas,
                prepared: KnownBeforeWrite(swept: swept[batch[i].state.noteID.bytes], owner: owners[batch[i].state.owner.bytes]))
        }
        try await deltas.apply(conn)
        return results.map { $0 ?? .invalid(code: "internal", reason: "not processed") }
    }

    /// What a batch already knows about one item before its own statements run.
    struct KnownBeforeWrite {
        /// `issued_note.swept` (nil: unknown note) and the held key's account (nil: unregistered).
        var swept: Int64?
        var owner: Int64?
        /// Rows of this item the batch's bulk insert wrote; nil: the item inserts its own rows.
        var inserted: Set<[UInt8]>?
    }

    /// The rows one redemption writes to `spent_state`: every spend of the chain, then the
    /// redemption marker of the held state. Columns as in `spentStateColumns`.
    func spentRows(_ item: RedemptionItem, now: Int64) -> [[any SQLBindable]] {
        let state = item.state
        var rows = edgeRows(state, now: now)
        let marker = Array(SHA256.hash(data: Self.redeemMarker + state.ref.bytes))
        rows.append([
            state.ref.bytes, marker, "redeem", SQLValue.null, state.chain.encoded, state.noteID.bytes, item.account, state.amount,
            "float", now,
            SQLValue.null, SQLValue.null,
        ])
        return rows
    }

    /// One `spent_state` row per transfer in the chain, with the request it pays (output 0's
    /// owner and the nonce).
    func edgeRows(_ state: VerifiedState, now: Int64) -> [[any SQLBindable]] {
        state.spends.map { edge in
            [
                edge.state.bytes, edge.transfer.hash.bytes, "transfer", edge.transfer.encoded, state.chain.proving(edge).encoded,
                state.noteID.bytes, SQLValue.null, Self.amount(of: edge), SQLValue.null, now,
                edge.transfer.outputs[0].owner.bytes, edge.transfer.nonce.bytes,
            ]
        }
    }

    static let spentStateColumns =
        "state_ref, spender, kind, transfer, chain, note_id, account_id, amount, funded_by, created_at, pays_key, pays_nonce"
    /// `spentStateColumns` as PostgreSQL arrays: a redemption marker has no transfer, no request
    /// paid; a transfer no account and no funding.
    static let spentStateBulkColumns: [BulkColumns.Column] = [
        .init(.bytea), .init(.bytea), .init(.text), .init(.bytea, nullable: true), .init(.bytea), .init(.bytea),
        .init(.bigint, nullable: true), .init(.bigint), .init(.text, nullable: true), .init(.bigint),
        .init(.bytea, nullable: true), .init(.bytea, nullable: true),
    ]

    /// Inserts rows into `spent_state` (PostgreSQL: one statement of column arrays; SQLite:
    /// VALUES lists chunked to stay under its parameter limit) and returns the state refs
    /// actually inserted. The primary key makes each state spent or redeemed at most
    /// once, whatever the concurrency.
    static func insertSpent(_ conn: any SQLConnection, _ rows: [[any SQLBindable]]) async throws -> Set<[UInt8]> {
        var inserted = Set<[UInt8]>()
        if conn.dialect == .postgres {
            guard !rows.isEmpty else { return inserted }
            let bulk = try BulkColumns(rows, columns: spentStateBulkColumns)
            for row in try await conn.query(
                "INSERT INTO spent_state(\(spentStateColumns)) SELECT \(bulk.select) FROM \(bulk.from) ON CONFLICT (state_ref) DO NOTHING RETURNING state_ref",
                bulk.binds)
            {
                inserted.insert(try row.blob("state_ref"))
            }
            return inserted
        }
        for start in stride(from: 0, to: rows.count, by: 400) {
            let chunk = rows[start..<min(start + 400, rows.count)]
            let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(
                separator: ", ")
            for row in try await conn.query(
                "INSERT INTO spent_state(\(spentStateColumns)) VALUES \(placeholders) ON CONFLICT (state_ref) DO NOTHING RETURNING state_ref",
                chunk.flatMap { $0 })
            {
                inserted.insert(try row.blob("state_ref"))
            }
        }
        return inserted
    }
}
