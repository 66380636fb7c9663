import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore

// One redemption's writes inside a transaction: the spent states, the credit from the float,
// and the fraud case a double spend opens.

extension Issuer {
    /// The transactional part of one redemption. Never throws for bad input (that would abort
    /// the whole batch): refusals are results.
    func write(
        _ item: RedemptionItem, _ conn: any SQLConnection, _ deltas: Ledger.Deltas, prepared: KnownBeforeWrite? = nil
    ) async throws -> RedeemResult {
        let state = item.state
        let now = self.now
        var prepared = prepared ?? KnownBeforeWrite()
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
        if let pre = prepared.inserted {
            inserted = pre
        } else {
            inserted = try await Self.insertSpent(conn, spentRows(item, now: now))
        }

        // 2. What was there already: the same spends (fine), or different ones (fraud).
        let conflict = try await recordSpends(conn, state, beneficiary: item.account, inserted: inserted)
        guard inserted.contains(state.ref.bytes) else {
            guard
                let existing = try await conn.queryOne(
                    "SELECT kind, account_id, amount, spender, transfer FROM spent_state WHERE state_ref = ?", state.ref.bytes)
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
                postings: [
                    .init(account: owner, amount: -Int64(state.amount)),
                    .init(account: item.account, amount: Int64(state.amount)),
                ],
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
            postings: [
                .init(account: cheater, amount: -Int64(state.amount)), .init(account: item.account, amount: Int64(state.amount)),
            ],
            entry: item.entry, now: now, deferred: deltas)
        try await conn.execute("UPDATE account SET frozen = 1 WHERE id = ?", cheater)
        try await conn.execute(
            "UPDATE fraud_case SET beneficiary_account = ?, status = 'recovered' WHERE id = ?", item.account, conflict.caseID)
        return .conflict(fraudCase: conflict.caseID, credited: state.amount)
    }

    /// The books of a redemption credited from the float (the normal case), into `deltas`:
    /// no statement runs.
    func credit(
        _ item: RedemptionItem, from float: Int64, _ conn: any SQLConnection, _ deltas: Ledger.Deltas, now: Int64
    ) async throws {
        let state = item.state
        try await Ledger.post(
            conn, kind: "redeem", reference: state.ref.bytes,
            postings: [
                .init(account: float, amount: -Int64(state.amount), sharded: true),
                .init(account: item.account, amount: Int64(state.amount)),
            ],
            entry: item.entry, now: now, deferred: deltas)
        deltas.redeemedByNote[state.noteID.bytes] = try Ledger.add(
            deltas.redeemedByNote[state.noteID.bytes, default: 0], Int64(state.amount))
    }

    /// Records every spend of a verified chain in `spent_state` (unless `inserted` says which of
    /// its rows a bulk insert already wrote). The first spend that contradicts an earlier one
    /// opens a fraud case, which is returned.
    func recordSpends(
        _ conn: any SQLConnection, _ state: VerifiedState, beneficiary: Int64?, inserted: Set<[UInt8]>? = nil
    ) async throws
        -> FraudCaseRef?
    {
        let written: Set<[UInt8]>
        if let inserted { written = inserted } else { written = try await Self.insertSpent(conn, edgeRows(state, now: now)) }
        var conflict: FraudCaseRef?
        // Every conflicting spend gets its case, not only the first: a cheater that double spends
        // the change of its own losing branch puts a second double spend behind the first on
        // every chain through it, and that one must be on the books too. The first is the one
        // the caller settles.
        for edge in state.spends where !written.contains(edge.state.bytes) {
            guard
                let first = try await conn.queryOne(
                    "SELECT spender, kind, transfer FROM spent_state WHERE state_ref = ?", edge.state.bytes),
                try first.blob("spender") != edge.transfer.hash.bytes
            else { continue }
            let fraudCase = try await openFraudCase(
                conn, state: edge.state, cheater: edge.owner, first: first, second: edge.transfer,
                chain: state.chain.proving(edge), noteID: state.noteID, beneficiary: beneficiary, amount: state.amount)
            if conflict == nil { conflict = fraudCase }
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
                try await audit(
                    conn, actor: nil, "restore_conflict",
                    "case \(id): key \(cheater.keyID) spent state \(state) that a restore exchanged; paid from account \(cheaterAccount ?? 0)"
                )
            } else {
                if let cheaterAccount { try await conn.execute("UPDATE account SET frozen = 1 WHERE id = ?", cheaterAccount) }
                try await audit(conn, actor: nil, "fraud_case", "case \(id): key \(cheater.keyID) double spent state \(state)")
                CrashPoints.reach(.issuerFraudInTransaction)
            }
        } else {
            let row = try await conn.queryOne(
                "SELECT id, status FROM fraud_case WHERE state_ref = ? AND second_spender = ?", state.bytes, secondSpender)
            id = try row?.int("id") ?? 0
            restoreConflict = try row?.text("status") == "restore_conflict"
        }
        return FraudCaseRef(caseID: id, cheaterAccount: cheaterAccount, restoreConflict: restoreConflict)
    }
}
