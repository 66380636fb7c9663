import Crypto
import OfflineNotes
import SQLStore

/// Withdrawals to a blockchain address: the request that debits the account, the payout's life (recorded,
/// paid, refused, reset), the liabilities the escrow must cover, and the rows behind them.
/// The postings are listed on `Escrow.swift`'s extension.
extension Issuer {
    /// Names withdrawal requests among the stored idempotent requests and prefixes their request
    /// hash. Stored values: a retry after an upgrade must find its first answer, so the spelling
    /// stays as first written.
    static let withdrawalRequestScope = "chain-withdrawal"

    /// Debits `amount` from the account and queues its payout to `to`, in one transaction.
    /// The same idempotency key with the same request answers the first withdrawal (debited
    /// once); with another request it is `idempotencyConflict`. Refused, changing nothing: a
    /// frozen account (`accountFrozen`), an amount of 0 or above `Amount.max`, a balance below
    /// the amount (`insufficientFunds`), a `to` that is not 20 bytes or is the zero address.
    public func requestWithdrawal(
        account: Int64, amount: UInt64, to: [UInt8], idempotencyKey: String
    ) async throws(IssuerError) -> Withdrawal {
        guard amount > 0, amount <= Amount.max else { throw .invalidField(field: "amount", reason: "must be positive") }
        guard to.count == 20 else { throw .invalidField(field: "to", reason: "an address is 20 bytes") }
        guard to.contains(where: { $0 != 0 }) else {
            throw .invalidField(
                field: "to", reason: "the zero address burns the tokens; give the address of a wallet you control")
        }
        try Self.checkIdempotencyKey(idempotencyKey)
        let requestHash = Array(
            SHA256.hash(data: Array(Self.withdrawalRequestScope.utf8) + to + withUnsafeBytes(of: amount.bigEndian, Array.init)))
        let id = random(32)
        let entry = random(16)
        let now = self.now
        let stored: [UInt8]
        do throws(IssuerError) {
            stored = try await transaction { conn in
                if let replay = try await Self.idempotentReplay(conn, account, idempotencyKey, requestHash) { return replay }
                let acct = try await Self.loadAccount(conn, account)
                guard acct.role != "system" else { throw IssuerError.accountNotFound }
                if let refusal = acct.frozenRefusal { throw refusal }
                try await Ledger.post(
                    conn, kind: "withdrawal", reference: id,
                    postings: Self.inLockOrder([
                        .init(account: account, amount: -Int64(amount), mustStayNonNegative: true),
                        .init(account: try await self.systemAccount(conn, .withdrawals), amount: Int64(amount)),
                    ]),
                    entry: entry, now: now)
                try await conn.execute(
                    """
                    INSERT INTO escrow_withdrawal(id, account_id, amount, to_address, status, idempotency_key, created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)
                    """,
                    id, account, Int64(amount), to, idempotencyKey, now, now)
                try await Self.storeIdempotent(conn, account, idempotencyKey, Self.withdrawalRequestScope, requestHash, id, now)
                return id
            }
        } catch {
            // A concurrent request with the same key committed first (this one then failed on
            // the key, or on the balance the winner took): answer the winner's withdrawal.
            switch error {
            case .storage, .insufficientFunds: break
            default: throw error
            }
            let replay = try? await transaction { conn in
                try await Self.idempotentReplay(conn, account, idempotencyKey, requestHash)
            }
            guard let replayed = replay ?? nil else { throw error }
            stored = replayed
        }
        guard let w = try await withdrawal(id: stored, account: account) else {
            throw .storage("the withdrawal stored for this idempotency key is missing")
        }
        return w
    }

    /// The account's withdrawals, newest first.
    public func withdrawals(account: Int64, limit: Int = 50) async throws(IssuerError) -> [Withdrawal] {
        try await transaction { conn in
            try await conn.query(
                "SELECT \(Self.withdrawalColumns) FROM escrow_withdrawal WHERE account_id = ? ORDER BY seq DESC LIMIT ?", account,
                max(1, min(limit, 1000))
            ).map(Self.withdrawalRow)
        }
    }

    /// One withdrawal; with `account`, only if it belongs to that account (else nil).
    public func withdrawal(id: [UInt8], account: Int64? = nil) async throws(IssuerError) -> Withdrawal? {
        try await transaction { conn in
            guard let w = try await Self.loadWithdrawal(conn, id), account == nil || w.account == account else { return nil }
            return w
        }
    }

    /// Pending and sent withdrawals, oldest first: what the payout sender works on.
    public func openWithdrawals() async throws(IssuerError) -> [Withdrawal] {
        try await transaction { conn in try await Self.openWithdrawals(conn) }
    }

    /// Signs and records the payout transaction of a pending withdrawal, in one transaction
    /// that holds the `escrow_state` row: two processes never sign with the same nonce.
    ///
    /// The nonce is `max(next_nonce, nodeNonce)` (the EVM's pending count covers transactions
    /// this database does not know of); `next_nonce` becomes nonce + 1. The row becomes `sent`
    /// with the nonce, raw transaction and hash *before* anything is broadcast, so a crash after
    /// broadcasting finds the transaction to resubmit. A withdrawal that is not pending is
    /// returned unchanged, `sign` not called.
    ///
    /// - Parameter sign: builds and signs the payout with the nonce; pure (it may run again if
    ///   PostgreSQL retries the transaction). Its error rolls everything back.
    public func recordPayout(
        id: [UInt8], nodeNonce: UInt64, sign: (UInt64) throws -> (raw: [UInt8], hash: [UInt8])
    ) async throws(IssuerError) -> Withdrawal {
        guard nodeNonce < UInt64(Int64.max) else { throw .invalidField(field: "nodeNonce", reason: "above 2^63") }
        let now = self.now
        return try await transaction { conn in
            let lock = conn.dialect == .postgres ? " FOR UPDATE" : ""
            guard let state = try await conn.queryOne("SELECT next_nonce FROM escrow_state WHERE id = 1\(lock)") else {
                throw IssuerError.storage("escrow_state row missing; migrations did not run")
            }
            guard let w = try await Self.loadWithdrawal(conn, id, lock: lock) else { throw IssuerError.withdrawalNotFound }
            guard w.status == .pending else { return w }
            let nonce = max(try state.uint("next_nonce"), nodeNonce)
            guard nonce < UInt64(Int64.max) else { throw IssuerError.storage("operator nonce exhausted") }
            let signed = try sign(nonce)
            guard signed.hash.count == 32, !signed.raw.isEmpty else {
                throw IssuerError.storage(
                    "the payout signer returned a hash of \(signed.hash.count) bytes and \(signed.raw.count) raw bytes")
            }
            try await conn.execute(
                "UPDATE escrow_withdrawal SET status = 'sent', nonce = ?, raw_tx = ?, tx_hash = ?, updated_at = ? WHERE id = ? AND status = 'pending'",
                Int64(nonce), signed.raw, signed.hash, now, id)
            try await conn.execute("UPDATE escrow_state SET next_nonce = ? WHERE id = 1", Int64(nonce + 1))
            guard let sent = try await Self.loadWithdrawal(conn, id) else { throw IssuerError.withdrawalNotFound }
            return sent
        }
    }

    /// The payout was mined and succeeded: `system:withdrawals` −a, `system:funding` +a. Exactly
    /// once: only the call that moves the row from pending/sent to paid posts; any later call
    /// (or one on a refused row) returns the row unchanged.
    /// - Parameter txHash: the mined payout's hash; nil keeps the recorded one.
    @discardableResult
    public func completeWithdrawal(id: [UInt8], txHash: [UInt8]?) async throws(IssuerError) -> Withdrawal {
        try await settle(id: id, status: .paid, txHash: txHash, reason: nil)
    }

    /// The escrow refused the payout (mined with status 0): `system:withdrawals` −a, account +a
    /// (frozen or not: the money is the account's). Exactly once, like `completeWithdrawal`.
    @discardableResult
    public func refuseWithdrawal(id: [UInt8], txHash: [UInt8]?, reason: String) async throws(IssuerError) -> Withdrawal {
        try await settle(id: id, status: .refused, txHash: txHash, reason: String(reason.prefix(500)))
    }

    /// The sent transaction is dead (its nonce was used by another transaction): back to
    /// pending without nonce, raw bytes or hash, to be signed again. Only a row still `sent`
    /// changes; otherwise it is returned as it is.
    @discardableResult
    public func resetPayout(id: [UInt8]) async throws(IssuerError) -> Withdrawal {
        let now = self.now
        return try await transaction { conn in
            try await conn.execute(
                "UPDATE escrow_withdrawal SET status = 'pending', nonce = NULL, raw_tx = NULL, tx_hash = NULL, updated_at = ? WHERE id = ? AND status = 'sent'",
                now, id)
            guard let w = try await Self.loadWithdrawal(conn, id) else { throw IssuerError.withdrawalNotFound }
            return w
        }
    }

    func settle(id: [UInt8], status: Withdrawal.Status, txHash: [UInt8]?, reason: String?) async throws(IssuerError) -> Withdrawal
    {
        if let txHash, txHash.count != 32 { throw .invalidField(field: "txHash", reason: "must be 32 bytes") }
        let now = self.now
        let entry = random(16)
        return try await transaction { conn in
            // The conditional UPDATE is the race's referee: of two concurrent calls (two
            // processes, or complete against refuse) exactly one gets the row back and posts.
            let won = try await conn.query(
                """
                UPDATE escrow_withdrawal SET status = ?, tx_hash = COALESCE(?, tx_hash), reason = ?, updated_at = ?
                WHERE id = ? AND status IN ('pending','sent') RETURNING account_id, amount
                """,
                status.rawValue, txHash, reason, now, id)
            if let row = won.first {
                let amount = try row.int("amount")
                let withdrawals = try await self.systemAccount(conn, .withdrawals)
                let to = status == .paid ? try await self.systemAccount(conn, .funding) : try row.int("account_id")
                try await Ledger.post(
                    conn, kind: status == .paid ? "withdrawal-paid" : "withdrawal-refused", reference: id,
                    postings: Self.inLockOrder([.init(account: withdrawals, amount: -amount), .init(account: to, amount: amount)]
                    ), entry: entry, now: now)
            }
            guard let w = try await Self.loadWithdrawal(conn, id) else { throw IssuerError.withdrawalNotFound }
            return w
        }
    }

    // MARK: Liabilities

    /// What the books owe against the escrow, with the deposit cursor and the open
    /// withdrawals, all from one snapshot (PostgreSQL: a REPEATABLE READ transaction; SQLite's
    /// transactions are serialized), so reconciliation never mixes two moments.
    public func escrowLiabilities() async throws(IssuerError) -> EscrowLiabilities {
        try await transaction { conn in
            if conn.dialect == .postgres { try await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY") }
            let balance = { (account: SystemAccount) in Ledger.balance(of: account) }
            guard
                let row = try await conn.queryOne(
                    """
                    SELECT
                        CAST((SELECT COALESCE(SUM(balance), 0) FROM account WHERE role <> 'system') AS BIGINT) AS accounts,
                        CAST((SELECT COALESCE(SUM(-balance), 0) FROM account WHERE role <> 'system' AND balance < 0) AS BIGINT) AS debts,
                        \(balance(.float)) AS float, \(balance(.withdrawals)) AS withdrawals, \(balance(.unclaimed)) AS unclaimed,
                        (SELECT scanned_through FROM escrow_state WHERE id = 1) AS scanned
                    """)
            else { throw IssuerError.storage("liabilities query returned nothing") }
            return EscrowLiabilities(
                accounts: try row.int("accounts"), debts: try row.int("debts"), float: try row.int("float"),
                pendingWithdrawals: try row.int("withdrawals"), unclaimed: try row.int("unclaimed"),
                creditedThrough: try row.optionalInt("scanned").map(UInt64.init), open: try await Self.openWithdrawals(conn))
        }
    }

    /// Postings by account id: `Ledger.post` locks balances in the order given, and a request
    /// (account, then system:withdrawals) racing a refund (system:withdrawals, then the account)
    /// on PostgreSQL would otherwise deadlock and be retried.
    static func inLockOrder(_ postings: [Ledger.Posting]) -> [Ledger.Posting] {
        postings.sorted { $0.account < $1.account }
    }

    // MARK: Rows

    static let withdrawalColumns =
        "id, account_id, amount, to_address, status, nonce, tx_hash, raw_tx, reason, created_at, updated_at"

    static func openWithdrawals(_ conn: any SQLConnection) async throws -> [Withdrawal] {
        try await conn.query("SELECT \(withdrawalColumns) FROM escrow_withdrawal WHERE status IN ('pending','sent') ORDER BY seq")
            .map(withdrawalRow)
    }

    static func loadWithdrawal(_ conn: any SQLConnection, _ id: [UInt8], lock: String = "") async throws -> Withdrawal? {
        try await conn.queryOne("SELECT \(withdrawalColumns) FROM escrow_withdrawal WHERE id = ?\(lock)", id).map(withdrawalRow)
    }

    static func withdrawalRow(_ row: SQLRow) throws -> Withdrawal {
        let status = try row.text("status")
        guard let parsed = Withdrawal.Status(rawValue: status) else {
            throw IssuerError.storage("withdrawal status '\(status)' unknown")
        }
        return Withdrawal(
            id: try row.blob("id"), account: try row.int("account_id"), amount: try row.uint("amount"),
            to: try row.blob("to_address"),
            status: parsed, nonce: try row.optionalInt("nonce").map(UInt64.init), txHash: try row.optionalBlob("tx_hash"),
            rawTransaction: try row.optionalBlob("raw_tx"), reason: try row.optionalText("reason"),
            createdAt: try row.int("created_at"),
            updatedAt: try row.int("updated_at"))
    }
}
