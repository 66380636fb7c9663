import Crypto
import Foundation
import OfflineNotes
import SQLStore

/// What the console reads about fraud cases: the cases, the first spend and the movements of
/// the states they name, the wallet keys and counterparties involved, and the operator's reviews.
extension Issuer {
    /// Fraud cases matching `filter`, newest first, at most `limit`.
    public func fraudCases(matching filter: FraudCaseFilter, limit: Int = 200) async throws(IssuerError) -> [FraudCase] {
        var sql = "SELECT * FROM fraud_case WHERE 1 = 1"
        var binds: [any SQLBindable] = []
        if let status = filter.status {
            sql += " AND status = ?"
            binds.append(status)
        }
        if let account = filter.account {
            sql += " AND (cheater_account = ? OR beneficiary_account = ?)"
            binds += [account, account]
        }
        sql += " ORDER BY id DESC LIMIT ?"
        binds.append(max(1, min(limit, 1_000)))
        return try await transaction { conn in try await conn.query(sql, binds).map(Self.fraudCaseRow) }
    }

    /// One fraud case, or nil.
    public func fraudCase(id: Int64) async throws(IssuerError) -> FraudCase? {
        try await transaction { conn in
            try await conn.queryOne("SELECT * FROM fraud_case WHERE id = ?", id).map(Self.fraudCaseRow)
        }
    }

    static func fraudCaseRow(_ row: SQLRow) throws -> FraudCase {
        FraudCase(
            id: try row.int("id"), state: StateRef(uncheckedBytes: try row.blob("state_ref")),
            cheaterKey: PublicKeyBytes(uncheckedBytes: try row.blob("cheater_key")),
            cheaterAccount: try row.optionalInt("cheater_account"), firstKind: try row.text("first_kind"),
            firstTransfer: try row.optionalBlob("first_transfer"), secondTransfer: try row.optionalBlob("second_transfer"),
            chain: try row.blob("chain"), beneficiaryAccount: try row.optionalInt("beneficiary_account"),
            amount: try row.uint("amount"), status: try row.text("status"), createdAt: try row.uint("created_at"))
    }

    /// How `state` was first spent, as recorded.
    public func firstSpend(of state: StateRef) async throws(IssuerError) -> ConsoleFirstSpend? {
        try await transaction { conn in
            try await conn.queryOne(
                "SELECT kind, account_id, amount, created_at FROM spent_state WHERE state_ref = ?", state.bytes
            ).map {
                ConsoleFirstSpend(
                    kind: try $0.text("kind"), account: try $0.optionalInt("account_id"), amount: try $0.int("amount"),
                    createdAt: try $0.int("created_at"))
            }
        }
    }

    /// Movements between accounts booked against any of `states` (the outputs of a case's
    /// second transfer, which the later receiver redeemed): who was paid from whom.
    public func caseMovements(states: [StateRef]) async throws(IssuerError) -> [ConsoleMovement] {
        guard !states.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: states.count).joined(separator: ", ")
        let rows = try await transaction { conn in
            try await conn.query(
                """
                SELECT id, entry, account_id, amount, kind, created_at FROM journal
                WHERE kind IN ('fraud_recovery', 'restore_conflict') AND reference IN (\(marks)) ORDER BY id
                """,
                states.map(\.bytes))
        }
        // Each entry is two postings: the payer's debit and the payee's credit.
        var byEntry: [[UInt8]: [SQLRow]] = [:]
        var order: [[UInt8]] = []
        for row in rows {
            guard let entry = try? row.blob("entry") else { continue }
            if byEntry[entry] == nil { order.append(entry) }
            byEntry[entry, default: []].append(row)
        }
        return order.compactMap { entry -> ConsoleMovement? in
            guard let postings = byEntry[entry], let debit = postings.first(where: { ((try? $0.int("amount")) ?? 0) < 0 }),
                let credit = postings.first(where: { ((try? $0.int("amount")) ?? 0) > 0 }),
                let id = try? credit.int("id"), let kind = try? credit.text("kind"), let from = try? debit.int("account_id"),
                let to = try? credit.int("account_id"), let amount = try? credit.int("amount"),
                let at = try? credit.int("created_at")
            else { return nil }
            return ConsoleMovement(journalID: id, kind: kind, from: from, to: to, amount: amount, createdAt: at)
        }
    }

    /// The wallet keys of `account` that a restore replaced: the keys that held the states its
    /// restored wallets exchanged (`restore_exchange`), other than the restored wallet's own key.
    public func retiredWalletKeys(account: Int64) async throws(IssuerError) -> [PublicKeyBytes: RetiredWalletKey] {
        try await transaction { conn in
            let rows = try await conn.query(
                """
                SELECT s.chain AS chain, r.restore_key AS restore_key, r.created_at AS created_at
                FROM restore_exchange r JOIN spent_state s ON s.state_ref = r.state_ref WHERE r.account_id = ? ORDER BY r.created_at, r.state_ref
                """,
                account)
            var retired: [PublicKeyBytes: RetiredWalletKey] = [:]
            for row in rows {
                guard let chain = try? Chain(decoding: try row.blob("chain")) else { continue }
                let holder = chain.heldOutput?.owner ?? chain.note.owner
                let restoreKey = PublicKeyBytes(uncheckedBytes: try row.blob("restore_key"))
                guard holder != restoreKey, retired[holder] == nil else { continue }
                retired[holder] = RetiredWalletKey(replacedBy: restoreKey, at: try row.int("created_at"))
            }
            return retired
        }
    }

    /// For each of `journalIDs` (lines of `account`), the other user or admin account of the same
    /// entry: an online transfer's sender or receiver, whom a fraud recovery or a restore
    /// conflict paid or charged. Lines against system accounts only (purchases, redemptions,
    /// funding) are left out.
    public func counterparties(account: Int64, journalIDs: [Int64]) async throws(IssuerError) -> [Int64: Int64] {
        guard !journalIDs.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: journalIDs.count).joined(separator: ", ")
        return try await transaction { conn in
            let rows = try await conn.query(
                """
                SELECT j.id AS id, MIN(o.account_id) AS other FROM journal j
                JOIN journal o ON o.entry = j.entry AND o.account_id <> j.account_id
                JOIN account a ON a.id = o.account_id AND a.role <> 'system'
                WHERE j.account_id = ? AND j.id IN (\(marks)) GROUP BY j.id
                """,
                [account] + journalIDs)
            var others: [Int64: Int64] = [:]
            for row in rows { others[try row.int("id")] = try row.int("other") }
            return others
        }
    }

    /// The accounts `keys` are registered to (keys registered nowhere are left out).
    public func keyOwners(_ keys: [PublicKeyBytes]) async throws(IssuerError) -> [PublicKeyBytes: ConsoleWalletKey] {
        guard !keys.isEmpty else { return [:] }
        let unique = Array(Set(keys))
        let marks = Array(repeating: "?", count: unique.count).joined(separator: ", ")
        let rows = try await transaction { conn in
            try await conn.query(
                """
                SELECT k.public_key AS public_key, k.account_id AS account_id, a.email AS email, k.registered_at AS registered_at
                FROM wallet_key k JOIN account a ON a.id = k.account_id WHERE k.public_key IN (\(marks))
                """,
                unique.map(\.bytes))
        }
        var owners: [PublicKeyBytes: ConsoleWalletKey] = [:]
        for row in rows {
            let key = try Self.walletKeyRow(row)
            owners[key.publicKey] = key
        }
        return owners
    }

    static func walletKeyRow(_ row: SQLRow) throws(IssuerError) -> ConsoleWalletKey {
        do {
            return ConsoleWalletKey(
                publicKey: PublicKeyBytes(uncheckedBytes: try row.blob("public_key")), accountID: try row.int("account_id"),
                email: try row.text("email"), registeredAt: try row.int("registered_at"))
        } catch {
            throw .storage("wallet key row: \(error)")
        }
    }
}

extension Issuer {
    /// Records an operator's review of a fraud case (what was checked or done: "called the
    /// owner, debt repaid") in the audit log, as `fraud_case_review` with "case ID: note". The
    /// case's own status, which the money rules read, is never changed by a review.
    public func reviewFraudCase(_ id: Int64, by admin: Int64, note: String) async throws(IssuerError) {
        let note = try Self.adminReason(note)
        try await transaction { conn in
            guard try await conn.queryOne("SELECT id FROM fraud_case WHERE id = ?", id) != nil else {
                throw IssuerError.invalidField(field: "case", reason: "there is no fraud case \(id)")
            }
            try await audit(conn, actor: admin, "fraud_case_review", "case \(id): \(note)")
        }
    }

    /// The reviews of a fraud case, newest first.
    public func fraudCaseReviews(_ id: Int64) async throws(IssuerError) -> [AuditEntry] {
        try await auditLog(matching: AuditFilter(action: "fraud_case_review", text: "case \(id): ")).filter {
            $0.detail.hasPrefix("case \(id): ")
        }
    }
}
