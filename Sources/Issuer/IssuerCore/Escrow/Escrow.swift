import Crypto
import OfflineNotes
import SQLStore

/// The books of settlement on an EVM network: deposit references, crediting escrow
/// deposits, withdrawals and their payout transactions. The EVM I/O lives in EscrowSettlement,
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
                "INSERT INTO escrow_account_ref(account_id, ref, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", account,
                candidate, now)
            guard let ref = try await conn.queryOne("SELECT ref FROM escrow_account_ref WHERE account_id = ?", account) else {
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
    public func creditEscrowDeposits(
        _ deposits: [EscrowDeposit], scannedThrough: UInt64
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
                let account = try await conn.queryOne("SELECT account_id FROM escrow_account_ref WHERE ref = ?", d.accountRef)?
                    .int("account_id")
                let refusal: String? =
                    d.amount == 0
                    ? "amount 0"
                    : d.amount > Amount.max ? "amount \(d.amount) is above the ledger's largest amount \(Amount.max)" : nil
                let status = refusal != nil ? "refused" : account != nil ? "credited" : "unclaimed"
                let inserted = try await conn.query(
                    """
                    INSERT INTO escrow_deposit(tx_hash, log_index, block_number, account_ref, account_id, amount, status, reason, credited_at)
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
                    conn, kind: EscrowJournalKind.deposit, reference: d.reference,
                    postings: Self.inLockOrder([
                        .init(account: funding, amount: -Int64(d.amount)), .init(account: to, amount: Int64(d.amount)),
                    ]),
                    entry: entries[i], now: now)
                outcomes[i] = account.map { .credited(account: $0) } ?? .unclaimed
            }
            try await conn.execute(
                "UPDATE escrow_state SET scanned_through = ? WHERE id = 1 AND (scanned_through IS NULL OR scanned_through < ?)",
                Int64(scannedThrough), Int64(scannedThrough))
            return outcomes
        }
    }

    /// Binds the books to one escrow on one network (EIP-155 chain ID), and the payout nonce to the operator key.
    /// Called at every start in escrow mode, before any scan or payout.
    ///
    /// - The first call records `chainID` and `escrow`; a later call naming another chain ID or
    ///   escrow is refused (`escrowMismatch`): the cursor, the deposits and the withdrawals
    ///   in this database belong to the first, and following another would credit or pay
    ///   against the wrong contract.
    /// - A new `operatorAddress` (the owner replaced a leaked operator key) restarts
    ///   `next_nonce` at 0: the stored one counted the old key's transactions, and the new key's
    ///   payouts would otherwise wait forever behind a nonce gap. (`recordPayout` takes the larger
    ///   of it and the EVM's count, so 0 means "the EVM's count".)
    public func bindEscrow(chainID: UInt64, escrow: [UInt8], operatorAddress: [UInt8]) async throws(IssuerError) {
        guard escrow.count == 20, operatorAddress.count == 20 else {
            throw .invalidField(field: "escrow", reason: "addresses are 20 bytes")
        }
        guard chainID <= UInt64(Int64.max) else { throw .invalidField(field: "chainID", reason: "above 2^63") }
        try await transaction { conn in
            let lock = conn.dialect == .postgres ? " FOR UPDATE" : ""
            guard let row = try await conn.queryOne("SELECT chain_id, escrow, operator FROM escrow_state WHERE id = 1\(lock)")
            else {
                throw IssuerError.storage("escrow_state row missing; migrations did not run")
            }
            guard let boundChainID = try row.optionalInt("chain_id"), let boundEscrow = try row.optionalBlob("escrow") else {
                try await conn.execute(
                    "UPDATE escrow_state SET chain_id = ?, escrow = ?, operator = ? WHERE id = 1", Int64(chainID), escrow,
                    operatorAddress)
                return
            }
            guard boundChainID == Int64(chainID), boundEscrow == escrow else {
                throw IssuerError.escrowMismatch(boundChainID: UInt64(boundChainID), boundEscrow: boundEscrow)
            }
            if try row.optionalBlob("operator") != operatorAddress {
                try await conn.execute("UPDATE escrow_state SET operator = ?, next_nonce = 0 WHERE id = 1", operatorAddress)
            }
        }
    }

    /// The deposit cursor: the last block whose deposits are all credited; nil before the first scan.
    public func escrowCursor() async throws(IssuerError) -> UInt64? {
        try await transaction { conn in
            try await conn.queryOne("SELECT scanned_through FROM escrow_state WHERE id = 1")?.optionalInt("scanned_through").map(
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
                UPDATE escrow_deposit SET status = 'credited', account_id = ?, reason = ?, assigned_by = ?, assigned_at = ?
                WHERE tx_hash = ? AND log_index = ? AND status = 'unclaimed' RETURNING amount, block_number
                """,
                account, reason, admin, now, txHash, Int64(logIndex))
            guard let row = won.first else {
                guard
                    let existing = try await conn.queryOne(
                        "SELECT status, account_id FROM escrow_deposit WHERE tx_hash = ? AND log_index = ?", txHash,
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
                conn, kind: EscrowJournalKind.assignedDeposit, reference: reference,
                postings: Self.inLockOrder([
                    .init(account: unclaimed, amount: -amount, mustStayNonNegative: true),
                    .init(account: account, amount: amount),
                ]),
                entry: entry, now: now)
            try await self.audit(
                conn, actor: admin, "escrow_deposit_assigned",
                "deposit \(EVMHex.hex(txHash)) log \(logIndex) of \(IssuerError.money(amount, currency)) from system:unclaimed to account \(account): \(reason)"
            )
            return AssignedDeposit(
                txHash: txHash, logIndex: logIndex, blockNumber: try row.uint("block_number"), amount: UInt64(amount),
                account: account,
                reason: reason, assignedBy: admin, assignedAt: now)
        }
    }

    /// The total of surplus booked so far. Read it *before* the reconciliation whose
    /// difference is given to `bookEscrowSurplus`, as `bookedBefore`.
    public func escrowSurplusBooked() async throws(IssuerError) -> Int64 {
        try await transaction { conn in try await Self.surplusBooked(conn) }
    }

    /// Books tokens that reached the escrow outside `deposit` (a plain token transfer, whose
    /// transaction `txHash` names) into `system:unclaimed`: `system:funding` −a, unclaimed +a
    /// (`chain-surplus`, tx hash), an `escrow_surplus` row and an audit entry, in one transaction.
    ///
    /// - Once per transaction: a second call with the same hash and amount answers the first
    ///   booking (`replayed`, nothing posted, whatever the reconciliation says now); with
    ///   another amount it is `surplusConflict`.
    /// - Only money the escrow holds: `difference` is the difference of a reconciliation made
    ///   after `bookedBefore` (`escrowSurplusBooked()`) was read; the amount must not exceed it
    ///   less what was booked since (`noSurplus`). Bookings are serialized on the `escrow_state`
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
    public func bookEscrowSurplus(
        txHash: [UInt8], amount: UInt64, reason: String, by admin: Int64, difference: Int64, bookedBefore: Int64
    ) async throws(IssuerError) -> EscrowSurplus {
        guard txHash.count == 32 else { throw .invalidField(field: "txHash", reason: "a transaction hash is 32 bytes") }
        guard amount > 0, amount <= Amount.max else { throw .invalidField(field: "amount", reason: "must be positive") }
        let reason = try Self.adminReason(reason)
        let now = self.now
        let entry = random(16)
        let currency = config.currency
        return try await transaction { conn in
            // Serializes bookings (SQLite's transactions are serialized already).
            let lock = conn.dialect == .postgres ? " FOR UPDATE" : ""
            guard try await conn.queryOne("SELECT id FROM escrow_state WHERE id = 1\(lock)") != nil else {
                throw IssuerError.storage("escrow_state row missing; migrations did not run")
            }
            if let booked = try await conn.queryOne(
                "SELECT amount, reason, booked_by, booked_at FROM escrow_surplus WHERE tx_hash = ?", txHash)
            {
                let bookedAmount = try booked.uint("amount")
                guard bookedAmount == amount else { throw IssuerError.surplusConflict(booked: bookedAmount, currency: currency) }
                return EscrowSurplus(
                    txHash: txHash, amount: amount, reason: try booked.text("reason"), bookedBy: try booked.int("booked_by"),
                    bookedAt: try booked.int("booked_at"), replayed: true)
            }
            let since = try await Self.surplusBooked(conn) - bookedBefore
            let (available, overflow) = difference.subtractingReportingOverflow(max(0, since))
            guard !overflow, available > 0, amount <= UInt64(available) else {
                throw IssuerError.noSurplus(available: overflow ? 0 : available, requested: amount, currency: currency)
            }
            try await conn.execute(
                "INSERT INTO escrow_surplus(tx_hash, amount, reason, booked_by, booked_at) VALUES (?, ?, ?, ?, ?)", txHash,
                Int64(amount), reason,
                admin, now)
            try await Ledger.post(
                conn, kind: EscrowJournalKind.surplus, reference: txHash,
                postings: Self.inLockOrder([
                    .init(account: try await self.systemAccount(conn, .funding), amount: -Int64(amount)),
                    .init(account: try await self.systemAccount(conn, .unclaimed), amount: Int64(amount)),
                ]),
                entry: entry, now: now)
            try await self.audit(
                conn, actor: admin, "escrow_surplus_booked",
                "transfer \(EVMHex.hex(txHash)) of \(IssuerError.money(amount, currency)) into system:unclaimed (reconciliation difference \(difference)): \(reason)"
            )
            return EscrowSurplus(txHash: txHash, amount: amount, reason: reason, bookedBy: admin, bookedAt: now, replayed: false)
        }
    }

    static func surplusBooked(_ conn: any SQLConnection) async throws -> Int64 {
        try await conn.queryOne("SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM escrow_surplus")?.int("total") ?? 0
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
}

/// Monotonic totals of escrow settlement, for metrics.
public struct EscrowTotals: Sendable, Equatable {
    /// Deposits credited (to an account or `system:unclaimed`).
    public var depositsCredited: Int64
    /// Withdrawals paid on the blockchain.
    public var paid: Int64
    /// Withdrawals the escrow refused (money returned).
    public var refused: Int64
}

extension Issuer {
    /// Counts for the escrow metrics (monotonic: deposits and settled withdrawals are never undone).
    public func escrowTotals() async throws(IssuerError) -> EscrowTotals {
        try await transaction { conn in
            guard
                let row = try await conn.queryOne(
                    """
                    SELECT CAST((SELECT COUNT(*) FROM escrow_deposit WHERE status <> 'refused') AS BIGINT) AS deposits,
                           CAST((SELECT COUNT(*) FROM escrow_withdrawal WHERE status = 'paid') AS BIGINT) AS paid,
                           CAST((SELECT COUNT(*) FROM escrow_withdrawal WHERE status = 'refused') AS BIGINT) AS refused
                    """)
            else { throw IssuerError.storage("escrow totals query returned nothing") }
            return EscrowTotals(
                depositsCredited: try row.int("deposits"), paid: try row.int("paid"), refused: try row.int("refused"))
        }
    }
}
