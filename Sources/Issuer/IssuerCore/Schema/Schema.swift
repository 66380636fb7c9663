import SQLStore

/// The issuer's tables. One DDL for both engines; only the three type names below differ.
///
/// Money invariants the schema carries:
/// - `spent_state.state_ref` is the primary key: a note state is spent (by a transfer) or
///   redeemed at most once, whatever the concurrency (docs/design.md §2.3).
/// - every balance change is a `journal` row; postings of one entry sum to zero.
enum Schema {
    static func ddl(_ dialect: SQLDialect) -> [String] {
        let id = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return [
            """
            CREATE TABLE account (
                id \(id),
                email TEXT NOT NULL UNIQUE,
                password_hash \(blob),
                role TEXT NOT NULL CHECK (role IN ('user','admin','system')),
                frozen \(int) NOT NULL DEFAULT 0,
                balance \(int) NOT NULL DEFAULT 0,
                created_at \(int) NOT NULL
            )
            """,
            """
            CREATE TABLE wallet_key (
                public_key \(blob) PRIMARY KEY,
                key_id \(blob) NOT NULL UNIQUE,
                account_id \(int) NOT NULL REFERENCES account(id),
                registered_at \(int) NOT NULL
            )
            """,
            "CREATE INDEX wallet_key_account ON wallet_key(account_id)",
            """
            CREATE TABLE journal (
                id \(id),
                entry \(blob) NOT NULL,
                account_id \(int) NOT NULL REFERENCES account(id),
                amount \(int) NOT NULL,
                kind TEXT NOT NULL,
                reference \(blob),
                created_at \(int) NOT NULL
            )
            """,
            "CREATE INDEX journal_account ON journal(account_id, id)",
            "CREATE INDEX journal_entry ON journal(entry)",
            """
            CREATE TABLE issued_note (
                note_id \(blob) PRIMARY KEY,
                state_ref \(blob) NOT NULL UNIQUE,
                account_id \(int) NOT NULL REFERENCES account(id),
                owner_key \(blob) NOT NULL,
                amount \(int) NOT NULL,
                issued_at \(int) NOT NULL,
                expires_at \(int) NOT NULL,
                note \(blob) NOT NULL,
                redeemed \(int) NOT NULL DEFAULT 0,
                swept \(int) NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX issued_note_owner ON issued_note(owner_key, swept)",
            "CREATE INDEX issued_note_expiry ON issued_note(swept, expires_at)",
            """
            CREATE TABLE spent_state (
                state_ref \(blob) PRIMARY KEY,
                spender \(blob) NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('transfer','redeem')),
                transfer \(blob),
                chain \(blob) NOT NULL,
                note_id \(blob) NOT NULL,
                account_id \(int),
                amount \(int) NOT NULL,
                funded_by TEXT,
                created_at \(int) NOT NULL
            )
            """,
            """
            CREATE TABLE fraud_case (
                id \(id),
                state_ref \(blob) NOT NULL,
                second_spender \(blob) NOT NULL,
                note_id \(blob) NOT NULL,
                cheater_key \(blob) NOT NULL,
                cheater_account \(int),
                first_kind TEXT NOT NULL,
                first_transfer \(blob),
                second_transfer \(blob),
                chain \(blob) NOT NULL,
                beneficiary_account \(int),
                amount \(int) NOT NULL,
                status TEXT NOT NULL DEFAULT 'open',
                created_at \(int) NOT NULL,
                UNIQUE (state_ref, second_spender)
            )
            """,
            """
            CREATE TABLE idempotency (
                account_id \(int) NOT NULL,
                key TEXT NOT NULL,
                operation TEXT NOT NULL,
                request_hash \(blob) NOT NULL,
                response \(blob) NOT NULL,
                created_at \(int) NOT NULL,
                PRIMARY KEY (account_id, key)
            )
            """,
            """
            CREATE TABLE audit_log (
                id \(id),
                actor_account \(int),
                action TEXT NOT NULL,
                detail TEXT NOT NULL,
                created_at \(int) NOT NULL
            )
            """,
        ]
    }

    /// Version 2: sessions and rate limits live in the database so that several server
    /// processes share them.
    static func ddlV2(_ dialect: SQLDialect) -> [String] {
        let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return [
            """
            CREATE TABLE refresh_token (
                token_hash \(blob) PRIMARY KEY,
                family \(blob) NOT NULL,
                account_id \(int) NOT NULL REFERENCES account(id),
                expires_at \(int) NOT NULL,
                used \(int) NOT NULL DEFAULT 0,
                revoked \(int) NOT NULL DEFAULT 0,
                created_at \(int) NOT NULL
            )
            """,
            "CREATE INDEX refresh_token_family ON refresh_token(family)",
            """
            CREATE TABLE rate_limit (
                bucket TEXT NOT NULL,
                window_start \(int) NOT NULL,
                hits \(int) NOT NULL,
                PRIMARY KEY (bucket, window_start)
            )
            """,
        ]
    }

    /// Money columns, with the range each table's values must stay in. Amounts are integers
    /// (docs/design.md §2.1): PostgreSQL's BIGINT holds nothing else, but SQLite stores whatever it is
    /// given in an INTEGER column — including the REAL it makes of an overflowing `balance + ?`,
    /// which then crashed every later read. `issued_note`'s amounts are non-negative, so
    /// `amount - redeemed` cannot overflow.
    static let moneyRules: [(table: String, columns: [String], nonNegative: Bool)] = [
        ("account", ["balance"], false),
        ("journal", ["amount"], false),
        ("issued_note", ["amount", "redeemed"], true),
        ("spent_state", ["amount"], false),
        ("fraud_case", ["amount"], false),
    ]

    /// Version 3: money columns refuse non-integers (and out-of-range values); refresh tokens
    /// remember when they were used (the reuse window); accounts get the look-alike key of
    /// their address (unique once filled in by `migrate`).
    ///
    /// SQLite cannot add a CHECK to an existing table without rebuilding it, and `account`,
    /// the parent of four foreign keys, can only be rebuilt with foreign keys off, which
    /// cannot change inside the migration's transaction. So on SQLite the rule is enforced by
    /// BEFORE INSERT/UPDATE triggers, which abort the statement just as a CHECK would; on
    /// PostgreSQL by CHECK constraints.
    static func ddlV3(_ dialect: SQLDialect) -> [String] {
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        var statements = [
            "ALTER TABLE refresh_token ADD COLUMN used_at \(int)",
            "ALTER TABLE account ADD COLUMN email_skeleton TEXT",
        ]
        for rule in moneyRules { statements += moneyRule(rule, dialect) }
        return statements
    }

    /// The statements that make `rule`'s columns refuse non-integers (SQLite triggers) and,
    /// where it says so, negative values (both engines).
    static func moneyRule(_ rule: (table: String, columns: [String], nonNegative: Bool), _ dialect: SQLDialect) -> [String] {
        switch dialect {
        case .postgres:
            guard rule.nonNegative else { return [] }
            let check = rule.columns.map { "\($0) >= 0" }.joined(separator: " AND ")
            return ["ALTER TABLE \(rule.table) ADD CONSTRAINT \(rule.table)_money_range CHECK (\(check))"]
        case .sqlite:
            let valid = rule.columns.map { "typeof(NEW.\($0)) = 'integer'" + (rule.nonNegative ? " AND NEW.\($0) >= 0" : "") }
                .joined(separator: " AND ")
            let message =
                "\(rule.table).\(rule.columns.joined(separator: "/")) must be \(rule.nonNegative ? "a non-negative" : "an") integer: amounts are whole minor units"
            return ["INSERT", "UPDATE OF \(rule.columns.joined(separator: ", "))"].map { event in
                """
                CREATE TRIGGER \(rule.table)_money_\(event.hasPrefix("INSERT") ? "insert" : "update") BEFORE \(event) ON \(rule.table)
                WHEN NOT (\(valid)) BEGIN SELECT RAISE(ABORT, '\(message)'); END
                """
            }
        }
    }

    /// Fills `account.email_skeleton` and makes it unique. Addresses stored before version 3
    /// that look alike keep working (they log in by their exact address); only the oldest of
    /// each group gets the skeleton, so no later registration can add another look-alike.
    static func fillEmailSkeletons(_ conn: any SQLConnection) async throws {
        var taken = Set<String>()
        for row in try await conn.query("SELECT id, email FROM account ORDER BY id") {
            let skeleton = EmailAddress.skeleton(of: try row.text("email"))
            guard taken.insert(skeleton).inserted else { continue }
            try await conn.execute("UPDATE account SET email_skeleton = ? WHERE id = ?", skeleton, try row.int("id"))
        }
        try await conn.execute("CREATE UNIQUE INDEX account_email_skeleton ON account(email_skeleton)")
    }

    /// Version 7: indexes that keep two lookups from reading every live note (without them, a
    /// purchase took seconds with 10^6 notes prefilled by `wallet-load --report`).
    /// An account's outstanding notes (`loadAccount`: every purchase, funding, send and account
    /// read) was a search of `issued_note_expiry` by `swept = 0` alone, i.e. every unswept note;
    /// a note's spent states (`lastHolders`, `losingBranchHolders`: the expiry sweep, per
    /// expired note) was a scan of the whole spent set.
    static let ddlScale = [
        "CREATE INDEX issued_note_account ON issued_note(account_id, swept)",
        "CREATE INDEX spent_state_note ON spent_state(note_id)",
    ]

    /// Version 8: the float's cached balance is spread over `Ledger.shardCount` rows
    /// (`Ledger.balance(of:)`), so redemption batches and purchases running at once, in one
    /// process or several, do not queue on the float's row lock until each COMMIT. On
    /// PostgreSQL, `issued_note` leaves a fifth of each new page free, so the one update of a
    /// note's `redeemed` (no indexed column changes) can stay on its page as a HOT update
    /// instead of writing all four of the table's indexes.
    static func ddlShards(_ dialect: SQLDialect) -> [String] {
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        var statements = [
            """
            CREATE TABLE balance_shard (
                account_id \(int) NOT NULL REFERENCES account(id),
                shard \(int) NOT NULL CHECK (shard >= 0),
                balance \(int) NOT NULL DEFAULT 0,
                PRIMARY KEY (account_id, shard)
            )
            """
        ]
        statements += moneyRule(("balance_shard", ["balance"], false), dialect)
        if dialect == .postgres { statements.append("ALTER TABLE issued_note SET (fillfactor = 80)") }
        return statements
    }

    /// The newest schema version `migrate` applies.
    static let latestVersion = 10

    /// Applies the schema once; safe when several processes start together. `version` stops
    /// early, for tests that build a database as an older release left it.
    static func migrate(_ db: any SQLDatabase, now: Int64, through version: Int = latestVersion) async throws {
        try await db.transaction { conn in
            if conn.dialect == .postgres {
                // Serializes concurrent migrators across processes for this transaction.
                _ = try await conn.query("SELECT CAST(pg_advisory_xact_lock(7042001) AS TEXT) AS locked")
            }
            try await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migration (version \(conn.dialect == .sqlite ? "INTEGER" : "BIGINT") PRIMARY KEY, applied_at \(conn.dialect == .sqlite ? "INTEGER" : "BIGINT") NOT NULL)"
            )
            let current =
                try await conn.queryOne("SELECT CAST(COALESCE(MAX(version), 0) AS BIGINT) AS v FROM schema_migration")?.int("v")
                ?? 0
            if current < 1, version >= 1 {
                for statement in ddl(conn.dialect) { try await conn.execute(statement) }
                // System ledger accounts: external money in, and the float of outstanding notes.
                for email in [SystemAccount.funding.email, SystemAccount.float.email] {
                    try await conn.execute(
                        "INSERT INTO account(email, role, created_at) VALUES (?, 'system', ?)", email, now)
                }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (1, ?)", now)
            }
            if current < 2, version >= 2 {
                for statement in ddlV2(conn.dialect) { try await conn.execute(statement) }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (2, ?)", now)
            }
            if current < 3, version >= 3 {
                for statement in ddlV3(conn.dialect) { try await conn.execute(statement) }
                try await fillEmailSkeletons(conn)
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (3, ?)", now)
            }
            if current < 4, version >= 4 {
                for statement in ddlRestore(conn.dialect) { try await conn.execute(statement) }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (4, ?)", now)
            }
            if current < 5, version >= 5 {
                for statement in ddlEscrow(conn.dialect) { try await conn.execute(statement) }
                for account in [SystemAccount.withdrawals, SystemAccount.unclaimed] {
                    try await conn.execute(
                        "INSERT INTO account(email, role, created_at) VALUES (?, 'system', ?)", account.email, now)
                }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (5, ?)", now)
            }
            if current < 6, version >= 6 {
                for statement in ddlConsole(conn.dialect) { try await conn.execute(statement) }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (6, ?)", now)
            }
            if current < 7, version >= 7 {
                for statement in ddlScale { try await conn.execute(statement) }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (7, ?)", now)
            }
            if current < 8, version >= 8 {
                for statement in ddlShards(conn.dialect) { try await conn.execute(statement) }
                let float = try await Ledger.systemAccount(conn, .float)
                for shard in 0..<Ledger.shardCount {
                    try await conn.execute(
                        "INSERT INTO balance_shard(account_id, shard, balance) VALUES (?, ?, 0)", float, Int64(shard))
                }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (8, ?)", now)
            }
            if current < 9, version >= 9 {
                for statement in ddlRequestPayments(conn.dialect) { try await conn.execute(statement) }
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (9, ?)", now)
            }
            if current < 10, version >= 10 {
                try await renameEscrowObjects(conn)
                try await conn.execute("INSERT INTO schema_migration(version, applied_at) VALUES (10, ?)", now)
            }
        }
    }
}

/// Ledger accounts that belong to no user.
enum SystemAccount: String {
    /// Money entering from outside (development funding, settlement adapters). Goes negative.
    case funding
    /// Value of issued notes not yet redeemed or refunded: the issuer's liability.
    case float
    /// Withdrawals to blockchain addresses debited from users and not yet paid or refused.
    case withdrawals
    /// Chain deposits whose account reference names no account; the operator resolves them.
    case unclaimed

    var email: String { "system:\(rawValue)" }
}
