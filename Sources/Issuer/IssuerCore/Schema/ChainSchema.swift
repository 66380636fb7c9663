import SQLStore

extension Schema {
    /// Version 5: settlement on an EVM chain.
    ///
    /// - `chain_account_ref`: the 32-byte reference a depositor passes to the escrow per account.
    /// - `chain_deposit`: every escrow Deposit log seen, keyed by (tx_hash, log_index): a deposit
    ///   is recorded, and so credited, at most once whatever the retries or processes. An
    ///   unclaimed one an admin later assigns to an account becomes `credited` with
    ///   `assigned_by`/`assigned_at` and the admin's reason in `reason`.
    /// - `chain_surplus`: tokens that reached the escrow outside `deposit` (a plain token
    ///   transfer), booked by an admin into `system:unclaimed`, keyed by the transfer's tx hash:
    ///   a separate table, not a `chain_deposit` status, because they are no Deposit log (no log
    ///   index, no account reference) and must not count as deposits in the metrics; the key
    ///   makes booking one transfer twice impossible.
    /// - `chain_withdrawal`: withdrawals and their payout transaction; `seq` orders them.
    /// - `chain_state`: one row: `scanned_through` (last block whose deposits are all credited)
    ///   and `next_nonce` (the operator account's next transaction nonce as far as we know), and
    ///   what they belong to: `chain_id` and `escrow` (bound on the first start in chain mode; a
    ///   database never follows another escrow) and `operator` (whose nonce `next_nonce` is).
    ///
    /// The status CHECKs also pin which payout columns each status has, so no code path can
    /// leave a `sent` row without the transaction it sent.
    static func ddlChain(_ dialect: SQLDialect) -> [String] {
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
}
