import Foundation
import GRDB

extension WalletDatabase {
    /// "v2-history": the history may hold account movements (new directions; `journal_id`,
    /// unique, ties a line to the issuer journal entry it stands for), and `account_entry`
    /// keeps every journal entry imported — whether it made a line, was tied to an existing
    /// one, or neither — so an import is idempotent and the next one knows where to resume.
    /// SQLite cannot change a CHECK in place: the history table is rebuilt, ids kept
    /// (`outgoing_payment.history_id` points at them).
    static func migrateHistoryV2(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE history_v2 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    direction TEXT NOT NULL CHECK (direction IN
                        ('sent','received','purchased','funded','refunded','charged')),
                    counterparty TEXT NOT NULL,
                    amount INTEGER NOT NULL,
                    currency TEXT NOT NULL,
                    online INTEGER NOT NULL,
                    method TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending','completed','failed')),
                    reference BLOB,
                    error TEXT,
                    journal_id INTEGER UNIQUE,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                INSERT INTO history_v2(id, direction, counterparty, amount, currency, online, method, status, reference,
                                       error, created_at, updated_at)
                  SELECT id, direction, counterparty, amount, currency, online, method, status, reference,
                         error, created_at, updated_at FROM history;
                DROP TABLE history;
                ALTER TABLE history_v2 RENAME TO history;
                CREATE INDEX history_time ON history(created_at);
                CREATE INDEX history_reference ON history(reference);
                CREATE TABLE account_entry (
                    journal_id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL,
                    amount INTEGER NOT NULL,
                    reference BLOB,
                    created_at INTEGER NOT NULL,
                    -- The history line this entry is shown as (new or existing); NULL when it
                    -- is part of something shown otherwise (a purchase, a refresh).
                    history_id INTEGER,
                    imported_at INTEGER NOT NULL
                );
                CREATE INDEX account_entry_reference ON account_entry(reference);
                CREATE INDEX account_entry_history ON account_entry(history_id);
                -- Fraud cases the issuer named for note states this wallet handed in or spent.
                CREATE TABLE fraud_case_link (
                    state_ref BLOB NOT NULL,
                    case_id INTEGER NOT NULL,
                    PRIMARY KEY (state_ref, case_id)
                );
                """)
    }
}
