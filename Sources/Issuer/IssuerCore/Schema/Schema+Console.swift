import SQLStore

extension Schema {
    /// Version 6: the operator console's sessions (docs/server.md, "Operator console"). In the
    /// database, not in a process, so that a session opened through one server process works
    /// through the others and a logout ends it everywhere. Only the SHA-256 of the cookie's
    /// token is stored: a copy of the database holds no live session.
    static func ddlConsole(_ dialect: SQLDialect) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return [
            """
            CREATE TABLE console_session (
                token_hash \(blob) PRIMARY KEY,
                account_id \(int) NOT NULL REFERENCES account(id),
                csrf \(blob) NOT NULL,
                created_at \(int) NOT NULL,
                expires_at \(int) NOT NULL,
                seen_at \(int) NOT NULL
            )
            """,
            "CREATE INDEX console_session_expiry ON console_session(expires_at)",
        ]
    }
}
