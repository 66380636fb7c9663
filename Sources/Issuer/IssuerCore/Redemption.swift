import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore

/// One chain to redeem, verified in full.
struct RedemptionItem: Sendable {
    let account: Int64
    let state: VerifiedState
    let entry: [UInt8]
}

extension RedemptionItem {
    /// Every state the redemption writes: each spend of the chain, then the held state. Two
    /// items of a batch that share one are written one by one (or, on PostgreSQL, the batch is
    /// not clean).
    var states: [[UInt8]] { state.spends.map(\.state.bytes) + [state.ref.bytes] }
}

/// One chain as the group commit queues it: verified before the transaction, except for the
/// note's issuer signature when `verified` is nil. The batch settles that one against the
/// note's record in `issued_note.note` (the issuer's own signature is not verified again:
/// `AwaitingIssuerRecord`); a chain whose note differs from its record, or has none, gets its
/// signature verified after the transaction, outside it, and is written by another.
struct PendingRedemption: Sendable {
    let account: Int64
    let chain: AwaitingIssuerRecord
    /// Set once the issuer signature was verified.
    var verified: VerifiedState?
    let entry: [UInt8]
}

/// The outcome for one chain of a redemption batch.
public enum RedeemResult: Sendable, Equatable {
    /// The held state was credited to the account.
    case credited(amount: UInt64)
    /// This account had already redeemed this state: nothing changed (retries are safe).
    case alreadyCredited(amount: UInt64)
    /// A state in the chain was spent differently before: a fraud case was opened. Under the
    /// default policy the honest later receiver is still credited (from the cheater).
    case conflict(fraudCase: Int64, credited: UInt64)
    /// The chain was refused; nothing changed.
    case invalid(code: String, reason: String)

    public var creditedAmount: UInt64 {
        switch self {
        case .credited(let a): a
        case .conflict(_, let c): c
        case .alreadyCredited, .invalid: 0
        }
    }
}

/// What the issuer knows of a note state (restored wallets, payments without a receipt).
public enum StateStatus: String, Sendable, Codable {
    /// An issued note's own state, not spent yet.
    case unspent
    /// Spent by a transfer the issuer has seen.
    case spent
    case redeemed
    /// An issued note's own state, refunded after expiry without being spent or redeemed.
    case refunded
    /// Not seen by the issuer: a state created offline and not yet redeemed or spent onward.
    case unknown
}

extension Issuer {
    /// Redeems chains into the account: one result per chain, in order. Chains are verified
    /// concurrently outside any transaction, then written by group commit.
    public func redeem(account: Int64, chains: [[UInt8]]) async throws(IssuerError) -> [RedeemResult] {
        guard (1...64).contains(chains.count) else { throw .invalidField(field: "chains", reason: "1 to 64 chains") }
        do {
            // One chain (what a wallet sends after one payment): no child task to verify it beside others.
            if chains.count == 1 { return [try await redeemOne(account: account, bytes: chains[0])] }
            return try await withThrowingTaskGroup(of: (Int, RedeemResult).self) { group in
                for (i, bytes) in chains.enumerated() {
                    group.addTask { (i, try await self.redeemOne(account: account, bytes: bytes)) }
                }
                var results = [RedeemResult?](repeating: nil, count: chains.count)
                for try await (i, result) in group { results[i] = result }
                return results.map { $0 ?? .invalid(code: "internal", reason: "missing result") }
            }
        } catch let error as IssuerError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    func redeemOne(account: Int64, bytes: [UInt8]) async throws -> RedeemResult {
        let now = UInt64(self.now)
        let chain: AwaitingIssuerRecord
        do {
            chain = try verifier.verifyChainAwaitingIssuerRecord(bytes, now: now, checkExpiry: false)
        } catch {
            return .invalid(code: error.code, reason: error.description)
        }
        // Written so that it cannot overflow: the note's signature is not verified yet, so its
        // expiry can be anything.
        guard now < chain.expiresAt || now - chain.expiresAt < config.redemptionGrace else {
            // Verification comes before the issuer's own rules (§5): a forged note is refused as forged.
            do { _ = try chain.confirmBySignature() } catch { return .invalid(code: error.code, reason: error.description) }
            return .invalid(code: "expired", reason: "the note expired and its redemption grace period is over")
        }
        let item = PendingRedemption(account: account, chain: chain, entry: random(16))
        return try await redemptions.submit(item) { batch, slot in
            let first = try await self.commitBatch(batch, slot: slot)
            var results: [Result<RedeemResult, any Error>] = first.map { .success($0 ?? .invalid(code: "internal", reason: "not processed")) }
            // Notes the record did not settle: their signatures are verified here, outside any
            // transaction (a flood of forged notes must not hold one open), and those that pass
            // are written by a second one. Honest chains get here only if their note's bytes
            // differ from the record (another valid encoding of the same signature).
            var again: [(index: Int, item: PendingRedemption)] = []
            for i in first.indices where first[i] == nil {
                do throws(VerificationError) {
                    var item = batch[i]
                    item.verified = try item.chain.confirmBySignature()
                    again.append((i, item))
                } catch {
                    results[i] = .success(.invalid(code: error.code, reason: error.description))
                }
            }
            guard !again.isEmpty else { return results }
            // The first transaction's chains are committed: a failure now is only these chains'.
            do {
                let written = try await self.commitBatch(again.map(\.item), slot: slot)
                for (n, i) in again.map(\.index).enumerated() { results[i] = .success(written[n] ?? .invalid(code: "internal", reason: "not processed")) }
            } catch {
                for i in again.map(\.index) { results[i] = .failure(error) }
            }
            return results
        }
    }

    /// One group-commit batch: `writeBatch` in a transaction, with its crash points. On
    /// PostgreSQL a batch of clean chains is first tried in one statement that commits alone
    /// (`commitCleanBatch`).
    func commitBatch(_ batch: [PendingRedemption], slot: Int) async throws -> [RedeemResult?] {
        if database.dialect == .postgres {
            switch await commitCleanBatch(batch, slot: slot) {
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
            let results = try await self.writeBatch(batch, conn, shard: self.shardOffset + slot)
            CrashPoints.reach(.issuerRedeemInTransaction)
            return results
        }
        CrashPoints.reach(.issuerRedeemCommitted)
        return results
    }

    /// PostgreSQL: a batch in two statements outside a transaction instead of five in one
    /// (BEGIN, the lookup, the spent states, the books, COMMIT; docs/performance.md, fifth
    /// round), when every chain in it is clean: its note's record settles its signature, the
    /// note is not refunded, the held key is the redeeming account's, and no two chains touch
    /// the same state. Then every chain is credited from the float, as `write` would, and
    /// the spent states and the books go in one statement that commits alone
    /// (`Ledger.Deltas.applyCommittingAlone`).
    ///
    /// `.notWritten`, with nothing written, when the batch is not clean, the statement refused
    /// it (a state already spent or redeemed: a retry, a double spend, another process
    /// redeeming the same chain at that moment; a note refunded since the lookup; an overflow)
    /// or anything failed before the statement was answered. `.outcomeUnknown` when the
    /// connection was lost under the statement. Either way the caller writes the batch in a
    /// transaction, which gives every chain its own answer. The lookup runs outside a
    /// transaction; `writeBatch`'s, under READ COMMITTED, takes no lock either, and what the
    /// write relies on is checked again by the statement.
    private func commitCleanBatch(_ batch: [PendingRedemption], slot: Int) async -> CleanBatchOutcome {
        do {
            return try await database.outsideTransaction { conn -> CleanBatchOutcome in
                let now = self.now
                let found = try await lookUp(batch, conn)
                var items: [RedemptionItem] = []
                var seen = Set<[UInt8]>()
                for item in batch {
                    guard let state = found.settle(item),
                        found.swept[state.noteID.bytes] == 0, found.owners[state.owner.bytes] == item.account
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
        var found = BatchLookup()
        let lookup: (notes: String, keys: String, binds: [any SQLBindable])
        if conn.dialect == .postgres {
            lookup = ("= ANY(CAST(? AS BYTEA[]))", "= ANY(CAST(? AS BYTEA[]))", [SQLValue.blobs(notes), SQLValue.blobs(keys)])
        } else {
            lookup = ("IN (\(Array(repeating: "?", count: notes.count).joined(separator: ", ")))",
                      "IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))", notes + keys)
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
                found.swept[key] = try row.int("v")
                found.records[key] = try row.blob("n")
            } else {
                found.owners[key] = try row.int("v")
            }
        }
        return found
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
    func writeBatch(_ pending: [PendingRedemption], _ conn: any SQLConnection, shard: Int) async throws -> [RedeemResult?] {
        let now = self.now
        let deltas = Ledger.Deltas(shard: shard)
        var results = [RedeemResult?](repeating: nil, count: pending.count)

        let found = try await lookUp(pending, conn)

        // The issuer signatures: settled by the record, or left to the caller (result nil).
        var batch: [RedemptionItem] = []
        var positions: [Int] = []
        for (i, item) in pending.enumerated() {
            guard let state = found.settle(item) else { continue }
            batch.append(RedemptionItem(account: item.account, state: state, entry: item.entry))
            positions.append(i)
        }
        let written = try await writeVerified(batch, conn, deltas, swept: found.swept, owners: found.owners, now: now)
        for (n, i) in positions.enumerated() { results[i] = written[n] }
        return results
    }

    /// `writeBatch` for the chains verified in full, with the batch's lookups.
    private func writeVerified(
        _ batch: [RedemptionItem], _ conn: any SQLConnection, _ deltas: Ledger.Deltas, swept: [[UInt8]: Int64], owners: [[UInt8]: Int64], now: Int64
    ) async throws -> [RedeemResult] {
        var results = [RedeemResult?](repeating: nil, count: batch.count)
        // Items that touch no state another item touches go through the bulk insert.
        var seen = Set<[UInt8]>()
        var bulk: [Int] = []
        var oneByOne: [Int] = []
        for (i, item) in batch.enumerated() {
            let refs = item.states
            let prepared = Prepared(swept: swept[item.state.noteID.bytes], owner: owners[item.state.owner.bytes])
            guard prepared.swept == 0, prepared.owner == item.account else {
                results[i] = try await write(item, conn, deltas, prepared: Prepared(swept: prepared.swept, owner: prepared.owner, inserted: []))
                continue
            }
            if refs.contains(where: seen.contains) { oneByOne.append(i) } else { bulk.append(i) }
            seen.formUnion(refs)
        }
        let rows = bulk.map { spentRows(batch[$0], now: now) }
        let inserted = try await Self.insertSpent(conn, rows.flatMap { $0 })
        for (n, i) in bulk.enumerated() {
            let mine = Set(rows[n].compactMap { $0.first as? [UInt8] }).intersection(inserted)
            results[i] = try await write(batch[i], conn, deltas, prepared: Prepared(swept: 0, owner: batch[i].account, inserted: mine))
        }
        for i in oneByOne {
            results[i] = try await write(batch[i], conn, deltas, prepared: Prepared(swept: swept[batch[i].state.noteID.bytes], owner: owners[batch[i].state.owner.bytes]))
        }
        try await deltas.apply(conn)
        return results.map { $0 ?? .invalid(code: "internal", reason: "not processed") }
    }

    /// What a batch already knows about one item before its own statements run.
    struct Prepared {
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
            state.ref.bytes, marker, "redeem", SQLValue.null, state.chain.encoded, state.noteID.bytes, item.account, state.amount, "float", now,
            SQLValue.null, SQLValue.null,
        ])
        return rows
    }

    /// One `spent_state` row per transfer in the chain, with the request it pays (output 0's
    /// owner and the nonce).
    func edgeRows(_ state: VerifiedState, now: Int64) -> [[any SQLBindable]] {
        state.spends.map { edge in
            [edge.state.bytes, edge.transfer.hash.bytes, "transfer", edge.transfer.encoded, state.chain.proving(edge).encoded,
             state.noteID.bytes, SQLValue.null, Self.amount(of: edge), SQLValue.null, now,
             edge.transfer.outputs[0].owner.bytes, edge.transfer.nonce.bytes]
        }
    }

    static let spentStateColumns = "state_ref, spender, kind, transfer, chain, note_id, account_id, amount, funded_by, created_at, pays_key, pays_nonce"
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
            let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            for row in try await conn.query(
                "INSERT INTO spent_state(\(spentStateColumns)) VALUES \(placeholders) ON CONFLICT (state_ref) DO NOTHING RETURNING state_ref",
                chunk.flatMap { $0 })
            {
                inserted.insert(try row.blob("state_ref"))
            }
        }
        return inserted
    }

    /// The transactional part of one redemption. Never throws for bad input (that would abort
    /// the whole batch): refusals are results.
    func write(_ item: RedemptionItem, _ conn: any SQLConnection, _ deltas: Ledger.Deltas, prepared: Prepared? = nil) async throws -> RedeemResult {
        let state = item.state
        let now = self.now
        var prepared = prepared ?? Prepared()
        if prepared.inserted == nil && prepared.swept == nil {
            let lookup = try await conn.queryOne(
                "SELECT (SELECT swept FROM issued_note WHERE note_id = ?) AS swept, (SELECT account_id FROM wallet_key WHERE public_key = ?) AS owner",
                state.noteID.bytes, state.owner.bytes)
            prepared.swept = try lookup?.optionalInt("swept")
            prepared.owner = try lookup?.optionalInt("owner")
        }
        guard let swept = prepared.swept else {
            return .invalid(code: "unknown_note", reason: "this issuer has no record of the note")
        }
        if swept != 0 { return .invalid(code: "expired", reason: "the note was already refunded after expiry") }
        guard prepared.owner == item.account else {
            return .invalid(code: "not_owner", reason: "the note is held by a key not registered to this account")
        }

        // 1. Every spend of the chain and the redemption of the held state.
        let inserted: Set<[UInt8]>
        if let pre = prepared.inserted { inserted = pre } else { inserted = try await Self.insertSpent(conn, spentRows(item, now: now)) }

        // 2. What was there already: the same spends (fine), or different ones (fraud).
        let conflict = try await recordSpends(conn, state, beneficiary: item.account, inserted: inserted)
        guard inserted.contains(state.ref.bytes) else {
            guard let existing = try await conn.queryOne("SELECT kind, account_id, amount, spender, transfer FROM spent_state WHERE state_ref = ?", state.ref.bytes)
            else { return .invalid(code: "internal", reason: "state vanished") }
            if try existing.text("kind") == "redeem" {
                return try existing.optionalInt("account_id") == item.account
                    ? .alreadyCredited(amount: try existing.uint("amount"))
                    : .invalid(code: "not_owner", reason: "redeemed by another account")
            }
            // The holder spent this state onward and now tries to redeem it too.
            let held = try await openFraudCase(
                conn, state: state.ref, cheater: state.owner, first: existing, second: nil, chain: state.chain,
                noteID: state.noteID, beneficiary: nil, amount: state.amount)
            return .conflict(fraudCase: held.caseID, credited: 0)
        }

        // 3. Credit: from the float normally; from the cheater after a conflict (default policy).
        let float = try await systemAccount(conn, .float)
        guard let conflict else {
            try await credit(item, from: float, conn, deltas, now: now)
            return .credited(amount: state.amount)
        }
        if conflict.restoreConflict, let owner = conflict.cheaterAccount, owner != item.account {
            // The old device of a restored wallet paid this state before the restore exchanged
            // it: the payee is paid from the owner's account, which is not frozen (§5.2 rule 5).
            try await conn.execute("UPDATE spent_state SET funded_by = 'restore' WHERE state_ref = ?", state.ref.bytes)
            try await Ledger.post(
                conn, kind: "restore_conflict", reference: state.ref.bytes,
                postings: [.init(account: owner, amount: -Int64(state.amount)), .init(account: item.account, amount: Int64(state.amount))],
                entry: item.entry, now: now, deferred: deltas)
            try await conn.execute("UPDATE fraud_case SET beneficiary_account = ? WHERE id = ?", item.account, conflict.caseID)
            return .conflict(fraudCase: conflict.caseID, credited: state.amount)
        }
        guard config.policy == .creditLaterReceiver, let cheater = conflict.cheaterAccount, cheater != item.account else {
            // Redeemed but not credited: a retry must not report a credit.
            try await conn.execute("UPDATE spent_state SET funded_by = 'none', amount = 0 WHERE state_ref = ?", state.ref.bytes)
            return .conflict(fraudCase: conflict.caseID, credited: 0)
        }
        try await conn.execute("UPDATE spent_state SET funded_by = 'fraud' WHERE state_ref = ?", state.ref.bytes)
        try await Ledger.post(
            conn, kind: "fraud_recovery", reference: state.ref.bytes,
            postings: [.init(account: cheater, amount: -Int64(state.amount)), .init(account: item.account, amount: Int64(state.amount))],
            entry: item.entry, now: now, deferred: deltas)
        try await conn.execute("UPDATE account SET frozen = 1 WHERE id = ?", cheater)
        try await conn.execute("UPDATE fraud_case SET beneficiary_account = ?, status = 'recovered' WHERE id = ?", item.account, conflict.caseID)
        return .conflict(fraudCase: conflict.caseID, credited: state.amount)
    }

    /// The books of a redemption credited from the float (the normal case), into `deltas`:
    /// no statement runs.
    func credit(_ item: RedemptionItem, from float: Int64, _ conn: any SQLConnection, _ deltas: Ledger.Deltas, now: Int64) async throws {
        let state = item.state
        try await Ledger.post(
            conn, kind: "redeem", reference: state.ref.bytes,
            postings: [.init(account: float, amount: -Int64(state.amount), sharded: true), .init(account: item.account, amount: Int64(state.amount))],
            entry: item.entry, now: now, deferred: deltas)
        deltas.redeemedByNote[state.noteID.bytes] = try Ledger.add(deltas.redeemedByNote[state.noteID.bytes, default: 0], Int64(state.amount))
    }

    /// Records every spend of a verified chain in `spent_state` (unless `inserted` says which of
    /// its rows a bulk insert already wrote). The first spend that contradicts an earlier one
    /// opens a fraud case, which is returned.
    func recordSpends(_ conn: any SQLConnection, _ state: VerifiedState, beneficiary: Int64?, inserted: Set<[UInt8]>? = nil) async throws
        -> FraudCaseRef?
    {
        let written: Set<[UInt8]>
        if let inserted { written = inserted } else { written = try await Self.insertSpent(conn, edgeRows(state, now: now)) }
        var conflict: FraudCaseRef?
        // Every conflicting spend gets its case, not only the first: a cheater that double spends
        // the change of its own losing branch puts a second double spend behind the first on
        // every chain through it, and that one must be on the books too (found by the
        // adversarial economy). The first is the one the caller settles.
        for edge in state.spends where !written.contains(edge.state.bytes) {
            guard let first = try await conn.queryOne("SELECT spender, kind, transfer FROM spent_state WHERE state_ref = ?", edge.state.bytes),
                try first.blob("spender") != edge.transfer.hash.bytes
            else { continue }
            let found = try await openFraudCase(
                conn, state: edge.state, cheater: edge.owner, first: first, second: edge.transfer,
                chain: state.chain.proving(edge), noteID: state.noteID, beneficiary: beneficiary, amount: state.amount)
            if conflict == nil { conflict = found }
        }
        return conflict
    }

    static func amount(of edge: SpendEdge) -> UInt64 {
        edge.transfer.outputs.reduce(0) { $0 + $1.amount }
    }

    /// A fraud case opened or found for a second spend.
    struct FraudCaseRef {
        let caseID: Int64
        /// The account of the key that signed twice (nil: the key is registered nowhere).
        let cheaterAccount: Int64?
        /// The first spend was a restore exchange by the same account: the old device of a
        /// restored wallet paid a state the restore had exchanged (§5.2 rule 5). Not frozen.
        let restoreConflict: Bool
    }

    /// Opens (or finds) the fraud case for a second spend of `state` and freezes the cheater,
    /// unless it is a restore conflict: the first spend was this account's restore exchange of
    /// the state, and the account has no restore conflict from another restore (a repeat is fraud).
    func openFraudCase(
        _ conn: any SQLConnection, state: StateRef, cheater: PublicKeyBytes, first: SQLRow, second: Transfer?, chain: Chain,
        noteID: NoteID, beneficiary: Int64?, amount: UInt64
    ) async throws -> FraudCaseRef {
        let cheaterAccount = try await Self.keyOwner(conn, cheater)
        let secondSpender = second?.hash.bytes ?? Array(SHA256.hash(data: Self.redeemMarker + state.bytes))
        let now = self.now
        var restoreConflict = false
        if let cheaterAccount, second != nil, try first.text("kind") == "redeem",
            let exchange = try await conn.queryOne(
                "SELECT restore_key FROM restore_exchange WHERE state_ref = ? AND account_id = ?", state.bytes, cheaterAccount)
        {
            let otherRestores = try await conn.queryOne(
                """
                SELECT COUNT(*) AS n FROM fraud_case f JOIN restore_exchange r ON r.state_ref = f.state_ref
                WHERE f.status = 'restore_conflict' AND f.cheater_account = ? AND r.restore_key <> ?
                """,
                cheaterAccount, try exchange.blob("restore_key"))
            restoreConflict = try (otherRestores?.int("n") ?? 0) == 0
        }
        let inserted = try await conn.query(
            """
            INSERT INTO fraud_case(state_ref, second_spender, note_id, cheater_key, cheater_account, first_kind, first_transfer,
                                   second_transfer, chain, beneficiary_account, amount, status, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (state_ref, second_spender) DO NOTHING RETURNING id
            """,
            state.bytes, secondSpender, noteID.bytes, cheater.bytes, cheaterAccount, try first.text("kind"),
            try first.optionalBlob("transfer"), second?.encoded, chain.encoded, beneficiary, amount,
            restoreConflict ? "restore_conflict" : "open", now)
        let id: Int64
        if let row = inserted.first {
            id = try row.int("id")
            if restoreConflict {
                try await audit(conn, actor: nil, "restore_conflict", "case \(id): key \(cheater.keyID) spent state \(state) that a restore exchanged; paid from account \(cheaterAccount ?? 0)")
            } else {
                if let cheaterAccount { try await conn.execute("UPDATE account SET frozen = 1 WHERE id = ?", cheaterAccount) }
                try await audit(conn, actor: nil, "fraud_case", "case \(id): key \(cheater.keyID) double spent state \(state)")
                CrashPoints.reach(.issuerFraudInTransaction)
            }
        } else {
            let row = try await conn.queryOne("SELECT id, status FROM fraud_case WHERE state_ref = ? AND second_spender = ?", state.bytes, secondSpender)
            id = try row?.int("id") ?? 0
            restoreConflict = try row?.text("status") == "restore_conflict"
        }
        return FraudCaseRef(caseID: id, cheaterAccount: cheaterAccount, restoreConflict: restoreConflict)
    }

    // MARK: Announce, state check, sweep

    /// A payer online first registers its signed transfer (the chain's last one), so the state
    /// counts as spent by it before the payee syncs. Conflicts open fraud cases. No credit.
    public func announce(account: Int64, chain bytes: [UInt8]) async throws(IssuerError) -> RedeemResult {
        let state: VerifiedState
        do { state = try verifier.verifyChain(bytes, now: UInt64(now), checkExpiry: false) } catch { throw .invalidChain(error) }
        guard let last = state.spends.last else { throw .invalidField(field: "chain", reason: "has no transfer to announce") }
        let result = try await transaction { conn -> RedeemResult in
            guard try await Self.keyOwner(conn, last.owner) == account else { throw IssuerError.notOwner }
            if let fraud = try await self.recordSpends(conn, state, beneficiary: nil) {
                return .conflict(fraudCase: fraud.caseID, credited: 0)
            }
            return .credited(amount: 0)
        }
        CrashPoints.reach(.issuerAnnounceCommitted)
        return result
    }

    /// Takes a fraud proof (docs/protocol.md §7) from any wallet that caught a double spend
    /// offline: a chain proving a state and two different transfers of it, both signed by its
    /// owner. Both spends are recorded; the second opens (or finds) the fraud case naming the
    /// owner and freezes its account. No one is credited: the reporter refused the payment.
    public func reportFraud(account: Int64, chain: [UInt8], first: [UInt8], second: [UInt8]) async throws(IssuerError)
        -> RedeemResult
    {
        let states: [VerifiedState]
        do {
            let proving = try Chain(decoding: chain)
            let transfers = [try Transfer(decoding: first), try Transfer(decoding: second)]
            guard transfers[0].hash != transfers[1].hash else {
                throw IssuerError.invalidField(field: "second", reason: "is the same transfer as 'first': no double spend")
            }
            // Verifying each transfer appended to the proving chain checks that it spends that
            // state and carries its owner's signature (the chain checks the issuer's). Verified
            // as a value, not re-encoded: 255 transfers plus one has no encoding (it trapped).
            states = try transfers.map { t throws(VerificationError) in
                try verifier.verify(proving.appending(t, holding: 0), now: UInt64(now), checkExpiry: false)
            }
        } catch let error as IssuerError {
            throw error
        } catch let error as VerificationError {
            throw .invalidChain(error)
        } catch {
            throw .invalidField(field: "chain", reason: "\(error)")
        }
        _ = account  // any signed-in wallet may report; the proof stands on its signatures
        let result = try await transaction { conn -> RedeemResult in
            var fraud = try await self.recordSpends(conn, states[0], beneficiary: nil)
            if let second = try await self.recordSpends(conn, states[1], beneficiary: nil) { fraud = second }
            guard let fraud else { throw IssuerError.invalidField(field: "second", reason: "does not conflict with 'first'") }
            return .conflict(fraudCase: fraud.caseID, credited: 0)
        }
        CrashPoints.reach(.issuerFraudCommitted)
        return result
    }

    /// What the issuer knows of each state: for wallets restored from a backup.
    public func stateStatus(_ refs: [StateRef]) async throws(IssuerError) -> [StateRef: StateStatus] {
        guard refs.count <= 512 else { throw .invalidField(field: "states", reason: "at most 512 per request") }
        return try await transaction { conn in
            var out: [StateRef: StateStatus] = [:]
            for ref in refs {
                if let row = try await conn.queryOne("SELECT kind FROM spent_state WHERE state_ref = ?", ref.bytes) {
                    out[ref] = try row.text("kind") == "redeem" ? .redeemed : .spent
                } else if let note = try await conn.queryOne("SELECT swept FROM issued_note WHERE state_ref = ?", ref.bytes) {
                    out[ref] = try note.int("swept") != 0 ? .refunded : .unspent
                } else {
                    out[ref] = .unknown
                }
            }
            return out
        }
    }

    /// Refunds what stayed unredeemed of notes past expiry + grace to the last holders the
    /// issuer knows (docs/protocol.md §5.2 rule 4).
    /// Returns the number of notes swept.
    @discardableResult
    public func sweepExpired() async throws(IssuerError) -> Int {
        let now = self.now
        let cutoff = now - Int64(clamping: config.redemptionGrace)
        let swept = try await transaction { conn -> Int in
            // PostgreSQL: the notes are locked as they are read (as a redemption batch locks
            // them), so a batch that holds one (its `redeemed` updated, not committed) is waited
            // for, and what it redeemed is not refunded as well; a batch that comes after finds
            // the note swept and does not credit it (`Ledger.Deltas`). SQLite has one writer at
            // a time.
            let due = try await conn.query(
                "SELECT note_id, state_ref, owner_key, account_id, amount, redeemed FROM issued_note WHERE swept = 0 AND expires_at <= ? ORDER BY expires_at LIMIT 1000"
                    + (conn.dialect == .postgres ? " FOR NO KEY UPDATE" : ""),
                cutoff)
            let float = try await self.systemAccount(conn, .float)
            for row in due {
                let remaining = try row.int("amount") - row.int("redeemed")
                let noteID = try row.blob("note_id")
                if remaining > 0 {
                    // To the last holders the issuer knows, not blindly to the purchaser (§5.2 rule 4).
                    let holders = try await self.lastHolders(
                        conn, noteID: noteID, root: try row.blob("state_ref"), rootOwner: try row.blob("owner_key"),
                        purchaser: try row.int("account_id"), remaining: remaining)
                    var byAccount: [Int64: Int64] = [:]
                    for holder in holders { byAccount[holder.account, default: 0] += holder.amount }
                    try await Ledger.post(
                        conn, kind: "expiry_refund", reference: noteID,
                        postings: [.init(account: float, amount: -remaining, sharded: true)]
                            + byAccount.sorted { $0.key < $1.key }.map { .init(account: $0.key, amount: $0.value) },
                        entry: self.random(16), now: now)
                }
                // The losing side of a double spend of this note was never in the float: what an
                // honest holder carried on there (spent onward, announced or redeemed) goes to its
                // last holders from the cheater's account, as a later receiver is paid at redemption.
                for (cheater, holders) in try await self.losingBranchHolders(conn, noteID: noteID) {
                    try await Ledger.post(
                        conn, kind: "expiry_refund", reference: noteID,
                        postings: [.init(account: cheater, amount: -holders.values.reduce(0, +))]
                            + holders.sorted { $0.key < $1.key }.map { .init(account: $0.key, amount: $0.value) },
                        entry: self.random(16), now: now)
                }
                try await conn.execute("UPDATE issued_note SET swept = 1, redeemed = amount WHERE note_id = ?", noteID)
                CrashPoints.reach(.issuerSweepInTransaction)
            }
            return due.count
        }
        if swept > 0 { CrashPoints.reach(.issuerSweepCommitted) }
        return swept
    }

    /// Fraud cases, newest first, with both signed transfers (admin).
    public func fraudCases(limit: Int = 100) async throws(IssuerError) -> [FraudCase] {
        try await transaction { conn in
            try await conn.query("SELECT * FROM fraud_case ORDER BY id DESC LIMIT ?", max(1, min(limit, 1000))).map(Self.fraudCaseRow)
        }
    }
}

/// A detected double spend with its evidence.
public struct FraudCase: Sendable, Equatable {
    public let id: Int64
    public let state: StateRef
    public let cheaterKey: PublicKeyBytes
    public let cheaterAccount: Int64?
    /// "transfer" (two transfers) or "redeem" (the holder redeemed a state it had spent).
    public let firstKind: String
    public let firstTransfer: [UInt8]?
    public let secondTransfer: [UInt8]?
    /// Proves the double-spent state and its owner.
    public let chain: [UInt8]
    public let beneficiaryAccount: Int64?
    public let amount: UInt64
    public let status: String
    public let createdAt: UInt64
}

extension Issuer {
    /// Exchanges long or nearly expired chains for fresh notes owned by `walletKey`: redeems
    /// them, then buys notes of the same total. Retrying the same chains is safe at every
    /// point: redemption answers "already credited" with the amount, and the purchase uses an
    /// idempotency key derived from the chains, so it happens once.
    ///
    /// With `restore`, the chains hold states a restored wallet took from its backup (§5.2
    /// rule 5): a state already spent is retired (`already_spent`, no fraud case), and each
    /// state exchanged is remembered so that a transfer of it the old device surfaces later is
    /// a restore conflict, not fraud.
    public func refresh(account: Int64, walletKey: PublicKeyBytes, chains: [[UInt8]], restore: Bool = false) async throws(IssuerError)
        -> (results: [RedeemResult], notes: [Chain])
    {
        let results = restore
            ? try await exchangeRestored(account: account, walletKey: walletKey, chains: chains)
            : try await redeem(account: account, chains: chains)
        var total: UInt64 = 0
        for r in results {
            switch r {
            case .credited(let a), .alreadyCredited(let a): total += a
            case .conflict(_, let c): total += c
            case .invalid: break
            }
        }
        guard total > 0 else { return (results, []) }
        CrashPoints.reach(.issuerRefreshRedeemed)
        let key = "refresh-" + Hex.encode(SHA256.hash(data: chains.flatMap { $0 } + walletKey.bytes).prefix(24))
        let notes = try await purchase(account: account, walletKey: walletKey, amount: total, idempotencyKey: key)
        CrashPoints.reach(.issuerRefreshCommitted)
        return (results, notes)
    }
}

extension Issuer {
    /// Redeems restored states one by one, remembering each exchange under the new wallet key.
    func exchangeRestored(account: Int64, walletKey: PublicKeyBytes, chains: [[UInt8]]) async throws(IssuerError) -> [RedeemResult] {
        guard (1...64).contains(chains.count) else { throw .invalidField(field: "chains", reason: "1 to 64 chains") }
        var results: [RedeemResult] = []
        for bytes in chains {
            let now = self.now
            let state: VerifiedState
            do {
                state = try verifier.verifyChain(bytes, now: UInt64(now), checkExpiry: false)
            } catch {
                results.append(.invalid(code: error.code, reason: error.description))
                continue
            }
            guard UInt64(now) < state.expiresAt &+ config.redemptionGrace else {
                results.append(.invalid(code: "expired", reason: "the note expired and its redemption grace period is over"))
                continue
            }
            let item = RedemptionItem(account: account, state: state, entry: random(16))
            results.append(try await transaction { conn -> RedeemResult in
                if let existing = try await conn.queryOne("SELECT kind, account_id, amount FROM spent_state WHERE state_ref = ?", state.ref.bytes) {
                    guard try existing.text("kind") == "redeem" else {
                        return .invalid(code: "already_spent", reason: "the old device already spent this note; it is retired, not exchanged")
                    }
                    guard try existing.optionalInt("account_id") == account else {
                        return .invalid(code: "not_owner", reason: "redeemed by another account")
                    }
                    // Only this wallet's own exchange is answered again (a retry after a lost
                    // answer gets its notes back through the purchase's idempotency key). A
                    // state another restore of the backup exchanged, or that the account
                    // redeemed before, has its value elsewhere: counting it again would buy
                    // notes the account already paid for.
                    let exchange = try await conn.queryOne("SELECT restore_key FROM restore_exchange WHERE state_ref = ?", state.ref.bytes)
                    switch try exchange?.blob("restore_key") {
                    case walletKey.bytes?:
                        return .alreadyCredited(amount: try existing.uint("amount"))
                    case .some:
                        return .invalid(
                            code: "already_exchanged",
                            reason: "another restore of this backup already exchanged this note; its value is in that wallet's notes")
                    case nil:
                        return .invalid(
                            code: "already_redeemed", reason: "this account already redeemed this note; its value is in the account's balance")
                    }
                }
                let deltas = Ledger.Deltas(shard: Int.random(in: 0..<Ledger.shardCount))
                let result = try await self.write(item, conn, deltas)
                try await deltas.apply(conn)
                if case .credited = result {
                    try await conn.execute(
                        "INSERT INTO restore_exchange(state_ref, account_id, restore_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (state_ref) DO NOTHING",
                        state.ref.bytes, account, walletKey.bytes, now)
                }
                return result
            })
            CrashPoints.reach(.issuerRestoreExchanged)
        }
        return results
    }

    /// The last holders of value on the losing side of each double spend of a note (the second
    /// transfer of its fraud cases), per cheater account: only below an output someone spent
    /// onward (an output nobody carried on may have been refused by its payee), without states
    /// already redeemed (paid at redemption) or held by the cheater's own account. Found by the
    /// adversarial economy: an honest wallet paid with a note from a cheater's losing branch,
    /// refused by a payee who had seen the other branch, was never credited.
    func losingBranchHolders(_ conn: any SQLConnection, noteID: [UInt8]) async throws -> [(cheater: Int64, holders: [Int64: Int64])] {
        let cases = try await conn.query(
            "SELECT second_transfer, cheater_account FROM fraud_case WHERE note_id = ? AND second_transfer IS NOT NULL AND cheater_account IS NOT NULL ORDER BY id",
            noteID)
        guard !cases.isEmpty else { return [] }
        var spent: [[UInt8]: (kind: String, transfer: [UInt8]?)] = [:]
        for row in try await conn.query("SELECT state_ref, kind, transfer FROM spent_state WHERE note_id = ?", noteID) {
            spent[try row.blob("state_ref")] = (try row.text("kind"), try row.optionalBlob("transfer"))
        }
        var out: [(cheater: Int64, holders: [Int64: Int64])] = []
        for row in cases {
            guard let bytes = try row.optionalBlob("second_transfer"), let second = try? Transfer(decoding: bytes) else { continue }
            let cheater = try row.int("cheater_account")
            var stack: [(ref: [UInt8], owner: [UInt8], signer: [UInt8]?, amount: UInt64, depth: Int)] = []
            for (i, output) in second.outputs.enumerated() where spent[second.outputRef(i).bytes]?.kind == "transfer" {
                stack.append((second.outputRef(i).bytes, output.owner.bytes, nil, output.amount, 1))
            }
            var holders: [Int64: Int64] = [:]
            while let next = stack.popLast() {
                guard let seen = spent[next.ref] else {
                    let owner = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: next.owner))
                    var signer: Int64?
                    if let key = next.signer { signer = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: key)) }
                    let account = owner ?? signer ?? cheater
                    if account != cheater { holders[account, default: 0] += Int64(clamping: next.amount) }
                    continue
                }
                guard seen.kind == "transfer", let transfer = seen.transfer, next.depth < 64, let t = try? Transfer(decoding: transfer) else { continue }
                for (i, output) in t.outputs.enumerated() {
                    stack.append((t.outputRef(i).bytes, output.owner.bytes, next.owner, output.amount, next.depth + 1))
                }
            }
            if !holders.isEmpty { out.append((cheater, holders)) }
        }
        return out
    }

    /// Whether the payee of `payment` (output 0's owner) took a different payer's payment for
    /// the same request: a recorded transfer with the same payee and nonce, signed by another
    /// key, whose output 0 the payee redeemed or spent onward. A wallet takes one payment per
    /// request (§5.2 rule 2), so the payee refused `payment`. Transfers of one payment share
    /// their signer (a payer pays from one key), so they never count against each other.
    static func requestPaidByAnother(_ conn: any SQLConnection, _ payment: Transfer) async throws -> Bool {
        let others = try await conn.query(
            "SELECT transfer FROM spent_state WHERE pays_key = ? AND pays_nonce = ? AND kind = 'transfer'",
            payment.outputs[0].owner.bytes, payment.nonce.bytes)
        for row in others {
            guard let bytes = try row.optionalBlob("transfer"), let other = try? Transfer(decoding: bytes),
                other.hash != payment.hash, other.signerKeyID != payment.signerKeyID
            else { continue }
            if try await conn.queryOne("SELECT 1 AS taken FROM spent_state WHERE state_ref = ?", other.outputRef(0).bytes) != nil { return true }
        }
        return false
    }

    /// Where the unredeemed value of an expired note goes (§5.2 rule 4): one entry per state at
    /// the end of the transfers the issuer has seen, to the account of its owner key, else of
    /// the key that signed it over, else of the purchaser — except a payment its payee refused
    /// (`requestPaidByAnother`), which goes to the signer's account first. Amounts sum to at most `remaining`;
    /// whatever is left goes to the purchaser.
    func lastHolders(_ conn: any SQLConnection, noteID: [UInt8], root: [UInt8], rootOwner: [UInt8], purchaser: Int64, remaining: Int64)
        async throws -> [(account: Int64, amount: Int64)]
    {
        var spent: [[UInt8]: (kind: String, transfer: [UInt8]?)] = [:]
        for row in try await conn.query("SELECT state_ref, kind, transfer FROM spent_state WHERE note_id = ?", noteID) {
            spent[try row.blob("state_ref")] = (try row.text("kind"), try row.optionalBlob("transfer"))
        }
        // Walk the tree of known transfers from the issued state; each unspent end is a holder.
        // `paying` is the transfer whose output 0 the end is: a payment to a request.
        var leaves: [(owner: [UInt8], signer: [UInt8]?, amount: UInt64, paying: Transfer?)] = []
        var stack: [(ref: [UInt8], owner: [UInt8], signer: [UInt8]?, amount: UInt64, depth: Int, paying: Transfer?)] = []
        if let amount = try await conn.queryOne("SELECT amount FROM issued_note WHERE note_id = ?", noteID)?.uint("amount") {
            stack.append((root, rootOwner, nil, amount, 0, nil))
        }
        while let next = stack.popLast() {
            guard let seen = spent[next.ref] else {
                leaves.append((next.owner, next.signer, next.amount, next.paying))
                continue
            }
            guard seen.kind == "transfer", let bytes = seen.transfer, next.depth < 64,
                let transfer = try? Transfer(decoding: bytes)
            else { continue }
            for (i, output) in transfer.outputs.enumerated() {
                stack.append((transfer.outputRef(i).bytes, output.owner.bytes, next.owner, output.amount, next.depth + 1, i == 0 ? transfer : nil))
            }
        }
        var left = remaining
        var out: [(account: Int64, amount: Int64)] = []
        for leaf in leaves where left > 0 {
            let key = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: leaf.owner))
            var signer: Int64?
            if let key = leaf.signer { signer = try await Self.keyOwner(conn, PublicKeyBytes(uncheckedBytes: key)) }
            let amount = min(Int64(clamping: leaf.amount), left)
            // A payment whose request the payee took another payer's payment for was refused
            // by the payee: it goes back to its payer, not to the payee.
            var refused = false
            if let paying = leaf.paying, signer != nil { refused = try await Self.requestPaidByAnother(conn, paying) }
            out.append((refused ? (signer ?? key ?? purchaser) : (key ?? signer ?? purchaser), amount))
            left -= amount
        }
        if left > 0 { out.append((purchaser, left)) }
        return out
    }
}
