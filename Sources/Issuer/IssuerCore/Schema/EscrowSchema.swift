import SQLStore

extension Schema {
    /// Version 5: settlement through an ERC-20 escrow on an EVM network, as it was applied.
    ///
    /// Applied migrations never change, so these tables are created under the names they had
    /// then (`chain_*`); version 10 (`renameEscrowObjects`) gives them their `escrow_*` names,
    /// on every database alike. What each holds, under its current name:
    ///
    /// - `escrow_account_ref`: the 32-byte reference a depositor passes to the escrow per account.
    /// - `escrow_deposit`: every escrow Deposit log seen, keyed by (tx_hash, log_index): a deposit
    ///   is recorded, and so credited, at most once whatever the retries or processes. An
    ///   unclaimed one an admin later assigns to an account becomes `credited` with
    ///   `assigned_by`/`assigned_at` and the admin's reason in `reason`.
    /// - `escrow_surplus`: tokens that reached the escrow outside `deposit` (a plain token
    ///   transfer), booked by an admin into `system:unclaimed`, keyed by the transfer's tx hash:
    ///   a separate table, not an `escrow_deposit` status, because they are no Deposit log (no
    ///   log index, no account reference) and must not count as deposits in the metrics; the key
    ///   makes booking one transfer twice impossible.
    /// - `escrow_withdrawal`: withdrawals and their payout transaction; `seq` orders them.
    /// - `escrow_state`: one row: `scanned_through` (last block whose deposits are all credited)
    ///   and `next_nonce` (the operator account's next transaction nonce as far as we know), and
    ///   what they belong to: `chain_id` (EIP-155) and `escrow` (bound on the first start in
    ///   escrow mode; a database never follows another escrow) and `operator` (whose nonce
    ///   `next_nonce` is).
    ///
    /// The status CHECKs also pin which payout columns each status has, so no code path can
    /// leave a `sent` row without the transaction it sent.
    static func ddlEscrow(_ dialect: SQLDialect) -> [String] {
        let id = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        /// A whole number ≥ `minimum` (SQLite would otherwise store a REAL or text in an INTEGER column).
        func whole(_ column: String, atLeast minimum: Int = 0) -> String {
            (dialect == .sqlite ? "typeof(\(column)) = 'integer' AND " : "") + "\(column) >= \(minimum)"
        }
        return [
            """
            CREATE TABLE chain_account_ref (
                account_id \(int) PRIMARY KEY REFERENCES account(id),
                ref \(blob) NOT NULL UNIQUE CHECK (length(ref) = 32),
                created_at \(int) NOT NULL
            )
            """,
            """
            CREATE TABLE chain_deposit (
                tx_hash \(blob) NOT NULL CHECK (length(tx_hash) = 32),
                log_index \(int) NOT NULL CHECK (\(whole("log_index"))),
                block_number \(int) NOT NULL CHECK (\(whole("block_number"))),
                account_ref \(blob) NOT NULL CHECK (length(account_ref) = 32),
                account_id \(int) REFERENCES account(id),
                amount \(int) NOT NULL CHECK (\(whole("amount"))),
                status TEXT NOT NULL CHECK (status IN ('credited','unclaimed','refused')),
                reason TEXT,
                credited_at \(int) NOT NULL,
                assigned_by \(int) REFERENCES account(id),
                assigned_at \(int),
                PRIMARY KEY (tx_hash, log_index),
                CHECK ((status = 'credited') = (account_id IS NOT NULL)),
                CHECK (status = 'refused' OR amount > 0),
                CHECK ((assigned_by IS NULL) = (assigned_at IS NULL) AND (assigned_by IS NULL OR status = 'credited'))
            )
            """,
            """
            CREATE TABLE chain_surplus (
                tx_hash \(blob) PRIMARY KEY CHECK (length(tx_hash) = 32),
                amount \(int) NOT NULL CHECK (\(whole("amount", atLeast: 1))),
                reason TEXT NOT NULL,
                booked_by \(int) NOT NULL REFERENCES account(id),
                booked_at \(int) NOT NULL
            )
            """,
            "CREATE INDEX chain_deposit_block ON chain_deposit(block_number)",
            """
            CREATE TABLE chain_withdrawal (
                seq \(id),
                id \(blob) NOT NULL UNIQUE CHECK (length(id) = 32),
                account_id \(int) NOT NULL REFERENCES account(id),
                amount \(int) NOT NULL CHECK (\(whole("amount", atLeast: 1))),
                to_address \(blob) NOT NULL CHECK (length(to_address) = 20),
                status TEXT NOT NULL CHECK (status IN ('pending','sent','paid','refused')),
                nonce \(int) CHECK (nonce IS NULL OR (\(whole("nonce")))),
                tx_hash \(blob) CHECK (tx_hash IS NULL OR length(tx_hash) = 32),
                raw_tx \(blob),
                reason TEXT,
                idempotency_key TEXT NOT NULL,
                created_at \(int) NOT NULL,
                updated_at \(int) NOT NULL,
                CHECK (status <> 'pending' OR (nonce IS NULL AND tx_hash IS NULL AND raw_tx IS NULL)),
                CHECK (status <> 'sent' OR (nonce IS NOT NULL AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL)),
                UNIQUE (account_id, idempotency_key)
            )
            """,
            "CREATE INDEX chain_withdrawal_account ON chain_withdrawal(account_id, seq)",
            "CREATE INDEX chain_withdrawal_status ON chain_withdrawal(status, seq)",
            """
            CREATE TABLE chain_state (
                id \(int) PRIMARY KEY CHECK (id = 1),
                scanned_through \(int) CHECK (scanned_through IS NULL OR (\(whole("scanned_through")))),
                next_nonce \(int) NOT NULL CHECK (\(whole("next_nonce"))),
                chain_id \(int) CHECK (chain_id IS NULL OR (\(whole("chain_id")))),
                escrow \(blob) CHECK (escrow IS NULL OR length(escrow) = 20),
                operator \(blob) CHECK (operator IS NULL OR length(operator) = 20),
                CHECK ((chain_id IS NULL) = (escrow IS NULL) AND (escrow IS NULL) = (operator IS NULL))
            )
            """,
            "INSERT INTO chain_state(id, scanned_through, next_nonce) VALUES (1, NULL, 0)",
        ]
    }

    /// The tables, indexes, sequences and constraints version 5 created, by the names they had
    /// then; version 10 renames each `chain_<rest>` to `escrow_<rest>`.
    static let escrowObjectsBeforeVersion10 = [
        "chain_account_ref", "chain_deposit", "chain_surplus", "chain_withdrawal", "chain_state",
    ]

    /// Version 10: version 5's `chain_*` objects take their `escrow_*` names. Renaming keeps
    /// every row, key and reference (both engines rewrite the foreign keys and triggers that
    /// name a renamed table); nothing is copied.
    ///
    /// PostgreSQL names a table's sequences, indexes and constraints after it, so those are
    /// renamed too, found in the catalog of the current schema. SQLite cannot rename an index,
    /// so its one named index is dropped and made again under the new name.
    static func renameEscrowObjects(_ conn: any SQLConnection) async throws {
        for table in escrowObjectsBeforeVersion10 {
            try await conn.execute("ALTER TABLE \(table) RENAME TO escrow\(table.dropFirst("chain".count))")
        }
        switch conn.dialect {
        case .sqlite:
            try await conn.execute("DROP INDEX chain_deposit_block")
            try await conn.execute("DROP INDEX chain_withdrawal_account")
            try await conn.execute("DROP INDEX chain_withdrawal_status")
            try await conn.execute("CREATE INDEX escrow_deposit_block ON escrow_deposit(block_number)")
            try await conn.execute("CREATE INDEX escrow_withdrawal_account ON escrow_withdrawal(account_id, seq)")
            try await conn.execute("CREATE INDEX escrow_withdrawal_status ON escrow_withdrawal(status, seq)")
        case .postgres:
            // Indexes (a constraint's index renames its constraint with it) and sequences first,
            // then the constraints no index backs (CHECKs, foreign keys).
            try await conn.execute(
                """
                DO $$
                DECLARE o record;
                BEGIN
                    FOR o IN SELECT c.relname, c.relkind FROM pg_class c
                             WHERE c.relnamespace = current_schema()::regnamespace
                               AND c.relkind IN ('i', 'S') AND c.relname LIKE 'chain\\_%'
                    LOOP
                        EXECUTE format(
                            CASE o.relkind WHEN 'i' THEN 'ALTER INDEX %I RENAME TO %I' ELSE 'ALTER SEQUENCE %I RENAME TO %I' END,
                            o.relname, 'escrow' || substr(o.relname, 6));
                    END LOOP;
                    FOR o IN SELECT t.relname AS tablename, k.conname FROM pg_constraint k
                             JOIN pg_class t ON t.oid = k.conrelid
                             WHERE t.relnamespace = current_schema()::regnamespace AND k.conname LIKE 'chain\\_%'
                    LOOP
                        EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I',
                            o.tablename, o.conname, 'escrow' || substr(o.conname, 6));
                    END LOOP;
                END
                $$
                """)
        }
    }
}
