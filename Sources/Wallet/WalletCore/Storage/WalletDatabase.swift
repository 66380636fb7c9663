import Foundation
import GRDB
import OfflineNotes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wallet's SQLite file: WAL mode, `synchronous = FULL` (a payment acknowledged to the
/// user survives power loss), schema managed by migrations.
enum WalletDatabase {
    static func open(path: String) throws(WalletError) -> DatabasePool {
        try restrictToOwner(path)
        var config = Configuration()
        // Clients serialize on their own lock (the CLI's directory flock); this is the backstop
        // for anything that does not, instead of failing at once with "database is locked".
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: config)
            try migrator.migrate(pool)
            return pool
        } catch {
            throw .storage("cannot open \(path): \(error)")
        }
    }

    /// The database and its WAL and shared-memory files hold the wallet's notes and history:
    /// mode 0600, whatever the umask. SQLite gives the `-wal` and `-shm` files the database
    /// file's mode, so the file is made 0600 before SQLite first opens it, and a file left wider
    /// (a copy, an older wallet) is narrowed to it.
    static func restrictToOwner(_ path: String) throws(WalletError) {
        // O_CREAT without O_TRUNC: an existing database is opened as it is. (`open` alone would
        // name `WalletDatabase.open(path:)` here.)
        #if canImport(Glibc)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #else
        let fd = Darwin.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #endif
        guard fd >= 0 else { throw .storage("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else {
            throw .storage("cannot make \(path) private (mode 0600): \(String(cString: strerror(errno)))")
        }
        for companion in [path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: companion) {
            guard chmod(companion, 0o600) == 0 else {
                throw .storage("cannot make \(companion) private (mode 0600): \(String(cString: strerror(errno)))")
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE setting (
                        key TEXT PRIMARY KEY,
                        value BLOB NOT NULL
                    );
                    -- One row per note state the wallet has held. 'ref' is the protocol StateRef.
                    CREATE TABLE note_state (
                        ref BLOB PRIMARY KEY CHECK (length(ref) = 32),
                        chain BLOB NOT NULL,
                        note_id BLOB NOT NULL,
                        currency TEXT NOT NULL,
                        amount INTEGER NOT NULL CHECK (amount > 0),
                        hops INTEGER NOT NULL CHECK (hops >= 0),
                        expires_at INTEGER NOT NULL,
                        status TEXT NOT NULL CHECK (status IN
                            ('available','reserved','spent','received','settled','expired','refunded')),
                        origin TEXT NOT NULL CHECK (origin IN ('purchased','change','received','restored')),
                        needs_online_check INTEGER NOT NULL DEFAULT 0,
                        spent_by BLOB,
                        received_in BLOB,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE INDEX note_state_spendable ON note_state(status, currency, expires_at);
                    -- Every spend this wallet made or saw. The primary key makes a second,
                    -- different transfer of one state impossible to record: docs/design.md §2.4 enforced
                    -- by the database, and the evidence for offline double-spend detection.
                    CREATE TABLE spend_edge (
                        state_ref BLOB PRIMARY KEY,
                        transfer_hash BLOB NOT NULL,
                        transfer BLOB NOT NULL,
                        proving_chain BLOB NOT NULL
                    );
                    CREATE TABLE outgoing_payment (
                        id BLOB PRIMARY KEY,
                        request_nonce BLOB NOT NULL UNIQUE,
                        request BLOB NOT NULL,
                        bundle BLOB NOT NULL,
                        amount INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        method TEXT NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('signed','completed')),
                        receipt BLOB,
                        history_id INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE TABLE payment_request (
                        nonce BLOB PRIMARY KEY,
                        request BLOB NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('open','paid')),
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE received_payment (
                        id BLOB PRIMARY KEY,
                        request_nonce BLOB NOT NULL UNIQUE REFERENCES payment_request(nonce),
                        bundle BLOB NOT NULL,
                        receipt BLOB NOT NULL,
                        amount INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        direction TEXT NOT NULL CHECK (direction IN ('sent','received','purchased')),
                        counterparty TEXT NOT NULL,
                        amount INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        online INTEGER NOT NULL,
                        method TEXT NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('pending','completed','failed')),
                        reference BLOB,
                        error TEXT,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE INDEX history_time ON history(created_at);
                    CREATE TABLE fraud_proof (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        state_ref BLOB NOT NULL,
                        cheater BLOB NOT NULL,
                        first_transfer BLOB NOT NULL,
                        second_transfer BLOB NOT NULL,
                        proving_chain BLOB NOT NULL,
                        detected_at INTEGER NOT NULL,
                        UNIQUE (state_ref, second_transfer)
                    );
                    """)
        }
        m.registerMigration("v2-payments") { db in
            // How a payment left the pending state when no receipt came back: 'issuer' (the
            // issuer saw the payee redeem or spend it) or 'expired' (the note expired unredeemed
            // and the issuer refunded it to the last holder it knew). NULL: by receipt.
            try db.execute(
                sql: "ALTER TABLE outgoing_payment ADD COLUMN resolution TEXT CHECK (resolution IN ('issuer','expired'))")
        }
        m.registerMigration("v2-history", migrate: migrateHistoryV2)
        return m
    }
}

extension Array where Element == UInt8 {
    var data: Data { Data(self) }
}

extension Row {
    func bytes(_ column: String) -> [UInt8] {
        let data: Data? = self[column]
        return data.map(Array.init) ?? []
    }

    func amount(_ column: String) -> UInt64 {
        let value: Int64 = self[column]
        return UInt64(clamping: value)
    }
}

/// Amounts are at most `Amount.max` (2^63 − 1) by protocol rule, so they always fit.
func sqlAmount(_ value: UInt64) -> Int64 { Int64(clamping: value) }
func sqlTime(_ value: Timestamp) -> Int64 { Int64(clamping: value) }
