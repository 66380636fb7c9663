import Crypto
import OfflineNotes
import SQLStore

/// The books of settlement on an EVM chain: deposit references, crediting escrow
/// deposits, withdrawals and their payout transactions. The chain I/O lives in ChainSettlement,
/// which calls these; each call is one database transaction, and every balance change in it is
/// a balanced journal entry, so several server processes may drive one database.
///
/// Postings (kind, reference):
/// - deposit: `system:funding` −a, account (or `system:unclaimed`) +a — `chain-deposit`, tx hash ‖ log index (8 bytes BE)
/// - withdrawal request: account −a, `system:withdrawals` +a — `withdrawal`, withdrawal id
/// - payout mined: `system:withdrawals` −a, `system:funding` +a — `withdrawal-paid`, withdrawal id
/// - payout refused: `system:withdrawals` −a, account +a — `withdrawal-refused`, withdrawal id
/// - unclaimed deposit assigned (admin): `system:unclaimed` −a, account +a — `chain-deposit-assigned`, tx hash ‖ log index
/// - surplus booked (admin): `system:funding` −a, `system:unclaimed` +a — `chain-surplus`, tx hash
extension Issuer {
    // MARK: Deposits

    /// The account's 32-byte deposit reference (`bytes32 account_ref` of the escrow's
    /// `deposit`), created on first request. System accounts have none (`accountNotFound`).
    public func depositReference(account: Int64) async throws(IssuerError) -> [UInt8] {
        let candidate = random(32)
        let now = self.now
        return try await transaction { conn in
            guard let row = try await conn.queryOne("SELECT role FROM account WHERE id = ?", account),
                try row.text("role") != "system"
            else {
                throw IssuerError.accountNotFound
            }
            // A concurrent first request inserts too: one wins, both read the winner's.
            try await conn.execute(
                "INSERT INTO chain_account_ref(account_id, ref, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", account,
                candidate, now)
            guard let ref = try await conn.queryOne("SELECT ref FROM chain_account_ref WHERE account_id = ?", account) else {
                throw IssuerError.storage("deposit reference of account \(account) vanished")
            }
            return try ref.blob("ref")
        }
    }

    /// Credits confirmed escrow deposits and moves the deposit cursor, in one transaction.
    ///
    /// Each deposit is recorded by `(txHash, logIndex)` with INSERT … ON CONFLICT DO NOTHING: only
    /// the call that inserts it posts the journal entry, so a deposit delivered twice — by a
    /// retry, a rescan after a crash, or two processes scanning at once — is credited once
    /// (`.duplicate` the other times).
    ///
    /// - A reference that names no account is credited to `system:unclaimed` (`.unclaimed`):
    ///   the money is in the escrow, so the books must hold it; an admin moves it to the right
    ///   account with `assignUnclaimedDeposit`.
    /// - A frozen account is credited all the same: the money was received and is the
    ///   account's; freezing stops spending (purchase, send, withdrawal), not receiving.
    /// - An amount of 0 or above `Amount.max` is recorded as refused, nothing posted
    ///   (`.refused`): the ledger cannot hold it; its row explains reconciliation's difference.
    ///
    /// - Parameter scannedThrough: the last block whose deposits are all in `deposits` or
    ///   credited earlier. The cursor only moves forward: a smaller value leaves it.
    /// - Returns: one outcome per deposit, in order.
    public func creditChainDeposits(
        _ deposits: [ChainDeposit], scannedThrough: UInt64
    ) async throws(IssuerError) -> [DepositOutcome] {
        for d in deposits {
            guard d.txHash.count == 32 else { throw .invalidField(field: "txHash", reason: "must be 32 bytes") }
            guard d.accountRef.count == 32 else { throw .invalidField(field: "accountRef", reason: "must be 32 bytes") }
            guard d.logIndex <= UInt64(Int64.max), d.blockNumber <= UInt64(Int64.max) else {
                throw .invalidField(field: "blockNumber", reason: "block numbers and log indexes above 2^63 cannot be stored")
            }
        }
        guard scannedThrough <= UInt64(Int64.max) else {
            throw .invalidField(field: "scannedThrough", reason: "block numbers above 2^63 cannot be stored")
        }
        let now = self.now
        // Inserted in key order: two processes crediting overlapping batches wait on each
        // other's rows in one order instead of deadlocking.
        let order = deposits.indices.sorted {
            let (a, b) = (deposits[$0], deposits[$1])
            return a.txHash == b.txHash ? a.logIndex < b.logIndex : a.txHash.lexicographicallyPrecedes(b.txHash)
        }
        let entries = deposits.map { _ in random(16) }
        return try await transaction { conn in
            var outcomes = [DepositOutcome](repeating: .duplicate, count: deposits.count)
            var seen = Set<[UInt8]>()
            for i in order {
                let d = deposits[i]
                // The same log twice in one batch: the second is a duplicate, as in two batches.
                guard seen.insert(d.reference).inserted else { continue }
                let account = try await conn.queryOne("SELECT account_id FROM chain_account_ref WHERE ref = ?", d.accountRef)?
                    .int("account_id")
                let refusal: String? =
                    d.amount == 0
                    ? "amount 0"
                    : d.amount > Amount.max ? "amount \(d.amount) is above the ledger's largest amount \(Amount.max)" : nil
                let status = refusal != nil ? "refused" : account != nil ? "credited" : "unclaimed"
                let inserted = try await conn.query(
                    """
                    INSERT INTO chain_deposit(tx_hash, log_index, block_number, account_ref, account_id, amount, status, reason, credited_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tx_hash, log_index) DO NOTHING RETURNING log_index
                    """,
                    d.txHash, Int64(d.logIndex), Int64(d.blockNumber), d.accountRef, refusal == nil ? account : nil,
                    refusal == nil ? Int64(d.amount) : 0, status, refusal, now)
                guard !inserted.isEmpty else { continue }
                if let refusal {
                    outcomes[i] = .refused(reason: refusal)
                    continue
                }
                let to: Int64
                if let account { to = account } else { to = try await self.systemAccount(conn, .unclaimed) }
                let funding = try await self.systemAccount(conn, .funding)
                try await Ledger.post(
                    conn, kind: "chain-deposit", reference: d.reference,
                    postings: Self.inLockOrder([
                        .init(account: funding, amount: -Int64(d.amount)), .init(account: to, amount: Int64(d.amount)),
                    ]),
                    entry: entries[i], now: now)
                outcomes[i] = account.map { .credited(account: $0) } ?? .unclaimed
            }
            try await conn.execute(
                "UPDATE chain_state SET scanned_through = ? WHERE id = 1 AND (scanned_through IS NULL OR scanned_through < ?)",
                Int64(scannedThrough), Int64(scannedThrough))
            return outcomes
        }
    }

    /// Binds the books to one escrow on one chain, and the payout nonce to the operator key.
    /// Called at every start in chain mode, before any scan or payout.
    ///
    /// - The first call records `chainID` and `escrow`; a later call naming another chain or
    ///   escrow is refused (`chainMismatch`): the cursor, the deposits and the withdrawals
    ///   in this database belong to the first, and following another would credit or pay
    ///   against the wrong contract.
    /// - A new `operatorAddress` (the owner replaced a leaked operator key) restarts
    ///   `next_nonce` at 0: the stored one counted the old key's transactions, and the new key's
    ///   payouts would otherwise wait forever behind a nonce gap. (`recordPayout` takes the larger
    ///   of it and the chain's count, so 0 means "the chain's count".)
    public func bindChain(chainID: UInt64, escrow: [UInt8], operatorAddress: [UInt8]) async throws(IssuerError) {
        guard escrow.count == 20, operatorAddress.count == 20 else {
            throw .invalidField(field: "escrow", reason: "addresses are 20 bytes")
        }
        guard chainID <= UInt64(Int64.max) else { throw .invalidField(field: "chainID", reason: "above 2^63") }
        try await transaction { conn in
            let lock = conn.dialect == .postgres ? " FOR UPDATE" : ""
            guard let row = try await conn.queryOne("SELECT chain_id, escrow, operator FROM chain_state WHERE id = 1\(lock)")
            else {
                throw IssuerError.storage("chain_state row missing; migrations did not run")
            }
            guard let boundChain = try row.optionalInt("chain_id"), let boundEscrow = try row.optionalBlob("escrow") else {
                try await conn.execute(
                    "UPDATE chain_state SET chain_id = ?, escrow = ?, operator = ? WHERE id = 1", Int64(chainID), escrow,
                    operatorAddress)
                return
            }
            guard boundChain == Int64(chainID), boundEscrow == escrow else {
                throw IssuerError.chainMismatch(boundChainID: UInt64(boundChain), boundEscrow: boundEscrow)
            }
            if try row.optionalBlob("operator") != operatorAddress {
                try await conn.execute("UPDATE chain_state SET operator = ?, next_nonce = 0 WHERE id = 1", operatorAddress)
            }
        }
    }

    /// The deposit cursor: the last block whose deposits are all credited; nil before the first scan.
    public func chainCursor() async throws(IssuerError) -> UInt64? {
        try await transaction { conn in
            try await conn.queryOne("SELECT scanned_through FROM chain_state WHERE id = 1")?.optionalInt("scanned_through").map(
                UInt64.init)
        }
    }

    // MARK: Resolving what the books cannot place (admin)

    /// Moves an unclaimed deposit (its reference named no account) to `account`:
    /// `system:unclaimed` −a, account +a (`chain-deposit-assigned`, tx hash ‖ log index); the row
    /// becomes `credited` to the account, with who assigned it, when and why; the audit log
    /// records the same — all in one transaction.
    ///
    /// Exactly once: the conditional UPDATE (status still `unclaimed`) decides, so of two
    /// concurrent calls (two admins, two processes) one posts and the other is refused
    /// `depositNotUnclaimed` having changed nothing; so is any later call. Refused too: an
    /// unknown deposit (`depositNotFound`), a missing or system account (`accountNotFound`),
    /// a reason not 3–500 characters. A frozen account receives it (freezing stops spending).
    public func assignUnclaimedDeposit(
        txHash: [UInt8], logIndex: UInt64, to account: Int64, reason: String, by admin: Int64
    ) async throws(IssuerError) -> AssignedDeposit {
        guard txHash.count == 32 else { throw .invalidField(field: "txHash", reason: "a transaction hash is 32 bytes") }
        guard logIndex <= UInt64(Int64.max) else { throw .depositNotFound }
        let reason = try Self.adminReason(reason)
        let now = self.now
        let entry = random(16)
        let reference = txHash + withUnsafeBytes(of: logIndex.bigEndian, Array.init)
        let currency = config.currency
        return try await transaction { conn in
            guard let target = try await conn.queryOne("SELECT role FROM account WHERE id = ?", account),
                try target.text("role") != "system"
            else {
                throw IssuerError.accountNotFound
            }
            let won = try await conn.query(
                """
                UPDATE chain_deposit SET status = 'credited', account_id = ?, reason = ?, assigned_by = ?, assigned_at = ?
                WHERE tx_hash = ? AND log_index = ? AND status = 'unclaimed' RETURNING amount, block_number
                """,
                account, reason, admin, now, txHash, Int64(logIndex))
            guard let row = won.first else {
                guard
                    let existing = try await conn.queryOne(
                        "SELECT status, account_id FROM chain_deposit WHERE tx_hash = ? AND log_index = ?", txHash,
                        Int64(logIndex))
                else { throw IssuerError.depositNotFound }
                throw IssuerError.depositNotUnclaimed(
                    status: try existing.text("status"), account: try existing.optionalInt("account_id"))
            }
            let amount = try row.int("amount")
            let unclaimed = try await self.systemAccount(conn, .unclaimed)
            // mustStayNonNegative: system:unclaimed holds at least every unclaimed row's amount;
            // were it ever short, refusing beats inventing money.
            try await Ledger.post(
                conn, kind: "chain-deposit-assigned", reference: reference,
                postings: Self.inLockOrder([
                    .init(account: unclaimed, amount: -amount, mustStayNonNegative: true),
                    .init(account: account, amount: amount),
                ]),
                entry: entry, now: now)
            try await self.audit(
                conn, actor: admin, "chain_deposit_assigned",
                "deposit \(ChainAddress.hex(txHash)) log \(logIndex) of \(IssuerError.money(amount, currency)) from system:unclaimed to account \(account): \(reason)"
            )
            return AssignedDeposit(
                txHash: txHash, logIndex: logIndex, blockNumber: try row.uint("block_number"), amount: UInt64(amount),
                account: account,
                reason: reason, assignedBy: admin, assignedAt: now)
        }
    }

    /// The total of surplus booked so far. Read it *before* the reconciliation whose
    /// difference is given to `bookChainSurplus`, as `bookedBefore`.
    public func chainSurplusBooked() async throws(IssuerError) -> Int64 {
        try await transaction { conn in try await Self.surplusBooked(conn) }
    }

    /// Books tokens that reached the escrow outside `deposit` (a plain token transfer, whose
    /// transaction `txHash` names) into `system:unclaimed`: `system:funding` −a, unclaimed +a
    /// (`chain-surplus`, tx hash), a `chain_surplus` row and an audit entry, in one transaction.
    ///
    /// - Once per transaction: a second call with the same hash and amount answers the first
    ///   booking (`replayed`, nothing posted, whatever the reconciliation says now); with
    ///   another amount it is `surplusConflict`.
    /// - Only money the escrow holds: `difference` is the difference of a reconciliation made
    ///   after `bookedBefore` (`chainSurplusBooked()`) was read; the amount must not exceed it
    ///   less what was booked since (`noSurplus`). Bookings are serialized on the `chain_state`
    ///   row, so two admins booking one transfer under two hashes at once cannot both spend the
    ///   same difference: the later one sees the earlier's amount and is refused (or, if its
    ///   reconciliation already saw it, refused conservatively — a retry then succeeds).
    ///
    /// Why a difference read before this transaction is still safe to book against although
    /// deposits and payouts go on meanwhile: reconciliation counts a deposit mined up to its
    /// block on both sides (in the escrow's balance, and in the books as uncredited or as
    /// credited), and a payout on both sides (out of the balance, and as paid-not-settled or
    /// settled), so the server's own traffic never moves the difference. A positive difference
    /// is tokens that arrived outside `deposit` by that block; they stay in the escrow (only
    /// `payout` takes tokens out, and every payout of ours is booked), so it can only grow, by
    /// further outside transfers. (A payout by a thief's key makes it fall, and shows as the
    /// shortfall it is: the surplus booked did arrive.)
    public func bookChainSurplus(
        txHash: [UInt8], amount: UInt64, reason: String, by admin: Int64, difference: Int64, bookedBefore: Int64
    ) async throws(IssuerError) -> ChainSurplus {
        guard txHash.count == 32 else { throw .invalidField(field: "txHash", reason: "a transaction hash is 32 bytes") }
        guard amount > 0, amount <= Amount.max else { throw .invalidField(field: "amount", reason: "must be positive") }
        let reason = try Self.adminReason(reason)
        let now = self.now
        let entry = random(16)
        let currency = config.currency
        return try await transaction { conn in
            // Serializes bookings (SQLite's transactions are serialized already).
            let lock = conn.dialect == .postgres ? " FOR UPDATE" : ""
            guard try await conn.queryOne("SELECT id FROM chain_state WHERE id = 1\(lock)") != nil else {
                throw IssuerError.storage("chain_state row missing; migrations did not run")
            }
            if let booked = try await conn.queryOne(
                "SELECT amount, reason, booked_by, booked_at FROM chain_surplus WHERE tx_hash = ?", txHash)
            {
                let bookedAmount = try booked.uint("amount")
                guard bookedAmount == amount else { throw IssuerError.surplusConflict(booked: bookedAmount, currency: currency) }
                return ChainSurplus(
                    txHash: txHash, amount: amount, reason: try booked.text("reason"), bookedBy: try booked.int("booked_by"),
                    bookedAt: try booked.int("booked_at"), replayed: true)
            }
            let since = try await Self.surplusBooked(conn) - bookedBefore
            let (available, overflow) = difference.subtractingReportingOverflow(max(0, since))
            guard !overflow, available > 0, amount <= UInt64(available) else {
                throw IssuerError.noSurplus(available: overflow ? 0 : available, requested: amount, currency: currency)
            }
            try await conn.execute(
                "INSERT INTO chain_surplus(tx_hash, amount, reason, booked_by, booked_at) VALUES (?, ?, ?, ?, ?)", txHash,
                Int64(amount), reason,
                admin, now)
            try await Ledger.post(
                conn, kind: "chain-surplus", reference: txHash,
                postings: Self.inLockOrder([
                    .init(account: try await self.systemAccount(conn, .funding), amount: -Int64(amount)),
                    .init(account: try await self.systemAccount(conn, .unclaimed), amount: Int64(amount)),
                ]),
                entry: entry, now: now)
            try await self.audit(
                conn, actor: admin, "chain_surplus_booked",
                "transfer \(ChainAddress.hex(txHash)) of \(IssuerError.money(amount, currency)) into system:unclaimed (reconciliation difference \(difference)): \(reason)"
            )
            return ChainSurplus(txHash: txHash, amount: amount, reason: reason, bookedBy: admin, bookedAt: now, replayed: false)
        }
    }

    static func surplusBooked(_ conn: any SQLConnection) async throws -> Int64 {
        try await conn.queryOne("SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM chain_surplus")?.int("total") ?? 0
    }

    /// An admin's reason for the audit log: 3–500 characters after trimming, one line (a
    /// newline or other control character could forge lines in a log viewer).
    static func adminReason(_ reason: String) throws(IssuerError) -> String {
        let trimmed = String(reason.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard (3...500).contains(trimmed.count) else {
            throw .invalidField(field: "reason", reason: "say why in 3 to 500 characters; it goes into the audit log")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidField(field: "reason", reason: "one line without control characters")
        }
        return trimmed
    }

    // MARK: Withdrawals

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
            SHA256.hash(data: Array("chain-withdrawal".utf8) + to + withUnsafeBytes(of: amount.bigEndian, Array.init)))
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
                    INSERT INTO chain_withdrawal(id, account_id, amount, to_address, status, idempotency_key, created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)
                    """,
                    id, account, Int64(amount), to, idempotencyKey, now, now)
                try await Self.storeIdempotent(conn, account, idempotencyKey, "chain-withdrawal", requestHash, id, now)
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
                "SELECT \(Self.withdrawalColumns) FROM chain_withdrawal WHERE account_id = ? ORDER BY seq DESC LIMIT ?", account,
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
    /// that holds the `chain_state` row: two processes never sign with the same nonce.
    ///
    /// The nonce is `max(next_nonce, chainNonce)` (the chain's pending count covers transactions
    /// this database does not know of); `next_nonce` becomes nonce + 1. The row becomes `sent`
    /// with the nonce, raw transaction and hash *before* anything is broadcast, so a crash after
    /// broadcasting finds the transaction to resubmit. A withdrawal that is not pending is
    /// returned unchanged, `sign` not called.
    ///
    /// - Parameter sign: builds and signs the payout with the nonce; pure (it may run again if
    ///   PostgreSQL retries the transaction). Its error rolls everything back.
    public func recordPayout(
        id: [UInt8], chainNonce: UInt64, sign: (UInt64) throws -> (raw: [UInt8], hash: [UInt8])
    ) async throws(IssuerError) -> Withdrawal {
        guard chainNonce < UInt64(Int64.max) else { throw .invalidField(field: "chainNonce", reason: "above 2^63") }
        let now = self.now
        return try await transaction { conn in
            let lock = conn.dialect == .postgres ? " FOR UPDATE" : ""
            guard let state = try await conn.queryOne("SELECT next_nonce FROM chain_state WHERE id = 1\(lock)") else {
                throw IssuerError.storage("chain_state row missing; migrations did not run")
            }
            guard let w = try await Self.loadWithdrawal(conn, id, lock: lock) else { throw IssuerError.withdrawalNotFound }
            guard w.status == .pending else { return w }
            let nonce = max(try state.uint("next_nonce"), chainNonce)
            guard nonce < UInt64(Int64.max) else { throw IssuerError.storage("operator nonce exhausted") }
            let signed = try sign(nonce)
            guard signed.hash.count == 32, !signed.raw.isEmpty else {
                throw IssuerError.storage(
                    "the payout signer returned a hash of \(signed.hash.count) bytes and \(signed.raw.count) raw bytes")
            }
            try await conn.execute(
                "UPDATE chain_withdrawal SET status = 'sent', nonce = ?, raw_tx = ?, tx_hash = ?, updated_at = ? WHERE id = ? AND status = 'pending'",
                Int64(nonce), signed.raw, signed.hash, now, id)
            try await conn.execute("UPDATE chain_state SET next_nonce = ? WHERE id = 1", Int64(nonce + 1))
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
                "UPDATE chain_withdrawal SET status = 'pending', nonce = NULL, raw_tx = NULL, tx_hash = NULL, updated_at = ? WHERE id = ? AND status = 'sent'",
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
                UPDATE chain_withdrawal SET status = ?, tx_hash = COALESCE(?, tx_hash), reason = ?, updated_at = ?
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
    public func chainLiabilities() async throws(IssuerError) -> ChainLiabilities {
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
                        (SELECT scanned_through FROM chain_state WHERE id = 1) AS scanned
                    """)
            else { throw IssuerError.storage("liabilities query returned nothing") }
            return ChainLiabilities(
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
        try await conn.query("SELECT \(withdrawalColumns) FROM chain_withdrawal WHERE status IN ('pending','sent') ORDER BY seq")
            .map(withdrawalRow)
    }

    static func loadWithdrawal(_ conn: any SQLConnection, _ id: [UInt8], lock: String = "") async throws -> Withdrawal? {
        try await conn.queryOne("SELECT \(withdrawalColumns) FROM chain_withdrawal WHERE id = ?\(lock)", id).map(withdrawalRow)
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

/// Monotonic totals of chain settlement, for metrics.
public struct ChainTotals: Sendable, Equatable {
    /// Deposits credited (to an account or `system:unclaimed`).
    public var depositsCredited: Int64
    /// Withdrawals paid on chain.
    public var paid: Int64
    /// Withdrawals the escrow refused (money returned).
    public var refused: Int64
}

extension Issuer {
    /// Counts for the chain metrics (monotonic: deposits and settled withdrawals are never undone).
    public func chainTotals() async throws(IssuerError) -> ChainTotals {
        try await transaction { conn in
            guard
                let row = try await conn.queryOne(
                    """
                    SELECT CAST((SELECT COUNT(*) FROM chain_deposit WHERE status <> 'refused') AS BIGINT) AS deposits,
                           CAST((SELECT COUNT(*) FROM chain_withdrawal WHERE status = 'paid') AS BIGINT) AS paid,
                           CAST((SELECT COUNT(*) FROM chain_withdrawal WHERE status = 'refused') AS BIGINT) AS refused
                    """)
            else { throw IssuerError.storage("chain totals query returned nothing") }
            return ChainTotals(
                depositsCredited: try row.int("deposits"), paid: try row.int("paid"), refused: try row.int("refused"))
        }
    }
}
