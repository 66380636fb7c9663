import SQLStore

extension Schema {
    /// Version 4: states exchanged by a restored wallet (docs/protocol.md §5.2 rule 5). A later
    /// transfer of one of them by the same account's old key is a restore conflict, not fraud.
    static func ddlRestore(_ dialect: SQLDialect) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return [
            """
            CREATE TABLE restore_exchange (
                state_ref \(blob) PRIMARY KEY,
                account_id \(int) NOT NULL REFERENCES account(id),
                restore_key \(blob) NOT NULL,
                created_at \(int) NOT NULL
            )
            """,
            "CREATE INDEX restore_exchange_account ON restore_exchange(account_id, restore_key)",
        ]
    }

    /// Version 9: which request each recorded transfer pays (its output 0's owner and its
    /// nonce), so that the expiry sweep can tell a payment the payee refused — its request was
    /// paid by another payer — and refund it to its payer (docs/protocol.md §5.2 rule 4).
    static func ddlRequestPayments(_ dialect: SQLDialect) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        return [
            "ALTER TABLE spent_state ADD COLUMN pays_key \(blob)",
            "ALTER TABLE spent_state ADD COLUMN pays_nonce \(blob)",
            "CREATE INDEX spent_state_request ON spent_state(pays_key, pays_nonce) WHERE pays_key IS NOT NULL",
        ]
    }
}
