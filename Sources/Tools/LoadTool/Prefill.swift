// The spent set grown to 10^5…10^7 notes without the API: rows generated
// inside the database, one durable transaction per chunk, shaped exactly like those a real
// one-hop redemption leaves behind, so that tables, indexes and the file are the size they
// would be after that many real redemptions.
//
// Per note, as the issuer writes them (Schema.swift, Issuer.purchase, Issuer.writeInTransaction):
//   issued_note   one row, fully redeemed (redeemed = amount), not swept
//   idempotency   the purchase's stored answer (the encoded note)
//   spent_state   the transfer of the note's state, and the redemption marker of its output
//   journal       the purchase entry (payer −100, float +100) and the redemption entry
//                 (float −100, payee +100)
// plus, per chunk, one funding entry (funding −total, payer +total) and the cached balances.
// The blobs (note, transfer, chains, stored answer) are copied from one real note bought,
// paid and redeemed through the issuer first (the template), so their sizes are real.
//
// Keys are disjoint from anything the API writes: on PostgreSQL SHA-256 of "owp:<tag>" and
// the note's number (deterministic; never an input the issuer hashes), on SQLite (no SHA-256
// in SQL) random 128/256-bit values. The report checks it anyway: every measured redemption
// must be `credited` and the spent set must hold exactly two rows per note afterwards.
import Foundation
import IssuerCore
import OfflineNotes
import SQLStore

/// The real note whose rows the prefill copies, and the accounts its rows post to.
struct PrefillTemplate: Sendable {
    let noteID: [UInt8]
    let transferRef: [UInt8]
    let redeemRef: [UInt8]
    let idempotencyKey: String
    let payer: Int64
    let payee: Int64
    let float: Int64
    let funding: Int64
    let amount: Int64
    let ownerKeyLength: Int

    /// Buys one note through the issuer, pays it to a second account and redeems it there.
    static func make(_ issuer: Issuer, _ db: any SQLDatabase) async throws -> PrefillTemplate {
        let payer = try await issuer.register(email: "prefill-payer@load.test", password: "load test password")
        let payee = try await issuer.register(email: "prefill-payee@load.test", password: "load test password")
        let (payerKey, payeeKey) = (SoftwareSigner(), SoftwareSigner())
        try await LoadSetup.register(issuer, payer, payerKey)
        try await LoadSetup.register(issuer, payee, payeeKey)
        _ = try await issuer.fund(account: payer, amount: UInt64(LoadSetup.noteAmount))
        let key = "load-prefill-template"
        let note = try await issuer.purchase(
            account: payer, walletKey: payerKey.publicKey, amount: UInt64(LoadSetup.noteAmount), idempotencyKey: key)[0]
        let t = try Transfer.sign(
            input: note.heldRef, outputs: [TransferOutput(owner: payeeKey.publicKey, amount: UInt64(LoadSetup.noteAmount))],
            nonce: Nonce(uncheckedBytes: Array(repeating: 9, count: 16)), createdAt: UInt64(Date().timeIntervalSince1970),
            signer: payerKey)
        let chain = note.appending(t, holding: 0)
        guard case .credited = try await issuer.redeem(account: payee, chains: [chain.encoded]).first else {
            throw SoakFailure("prefill: the template note was not credited")
        }
        return try await db.transaction { conn in
            func id(_ email: String) async throws -> Int64 {
                guard let row = try await conn.queryOne("SELECT id FROM account WHERE email = ?", email) else {
                    throw SoakFailure("prefill: no account \(email)")
                }
                return try row.int("id")
            }
            return PrefillTemplate(
                noteID: note.note.noteID.bytes, transferRef: note.heldRef.bytes, redeemRef: chain.heldRef.bytes,
                idempotencyKey: key,
                payer: payer, payee: payee, float: try await id("system:float"), funding: try await id("system:funding"),
                amount: LoadSetup.noteAmount, ownerKeyLength: payerKey.publicKey.bytes.count)
        }
    }
}

/// Grows the spent set of one database, chunk by chunk; `notes` counts the prefilled notes.
struct Prefill {
    let db: any SQLDatabase
    let template: PrefillTemplate
    private(set) var notes = 0
    /// Rows written per note: issued_note, idempotency, two spent_state, four journal.
    static let rowsPerNote = 8
    static let chunk = 50_000

    init(db: any SQLDatabase, template: PrefillTemplate) {
        self.db = db
        self.template = template
    }

    /// Adds notes until `target` are prefilled; returns the seconds it took.
    mutating func grow(to target: Int, log: (String) -> Void) async throws -> Double {
        let start = ContinuousClock.now
        let first = notes
        var lastLog = start
        while notes < target {
            let from = notes + 1
            let to = min(target, notes + Self.chunk)
            try await db.transaction { [template] conn in try await Self.insert(conn, from: from, to: to, template) }
            notes = to
            if ContinuousClock.now - lastLog >= .seconds(5) || notes == target {
                lastLog = .now
                let rate = Double(notes - first) / (ContinuousClock.now - start).seconds
                log(
                    String(
                        format: "  prefill: %d/%d notes, %.0f notes/s (%.0f rows/s)", notes, target, rate,
                        rate * Double(Self.rowsPerNote)))
            }
        }
        if db.dialect == .postgres {
            // What autovacuum would have done by the time a real spent set got this big.
            try await db.transaction { try await $0.execute("ANALYZE") }
        }
        return (ContinuousClock.now - start).seconds
    }

    /// Notes `from...to` in one transaction: their keys in a temporary table, then one
    /// INSERT … SELECT per table, the funding entry and the cached balances.
    static func insert(_ conn: any SQLConnection, from: Int, to: Int, _ t: PrefillTemplate) async throws {
        // Utility statements take no parameters on PostgreSQL: the bounds are integers, inlined.
        switch conn.dialect {
        case .postgres:
            func hash(_ tag: String, _ of: String = "g.i") -> String {
                "sha256(convert_to('owp:\(tag)', 'UTF8') || int8send(\(of)))"
            }
            guard t.ownerKeyLength <= 64 else { throw SoakFailure("prefill: owner keys of \(t.ownerKeyLength) bytes") }
            try await conn.execute(
                """
                CREATE TEMP TABLE owp_keys ON COMMIT DROP AS SELECT g.i AS i,
                    substring(\(hash("n")) from 1 for 16) AS note_id, \(hash("s")) AS note_ref, \(hash("r")) AS redeem_ref,
                    \(hash("x")) AS spender, \(hash("m")) AS marker,
                    substring(\(hash("p")) from 1 for 16) AS purchase_entry, substring(\(hash("e")) from 1 for 16) AS redeem_entry,
                    substring(\(hash("k", "g.i / 16")) || \(hash("K", "g.i / 16")) from 1 for \(t.ownerKeyLength)) AS owner_key
                FROM generate_series(CAST(\(from) AS BIGINT), CAST(\(to) AS BIGINT)) AS g(i)
                """)
        case .sqlite:
            try await conn.execute(
                """
                CREATE TEMP TABLE owp_keys AS WITH RECURSIVE g(i) AS (SELECT \(from) UNION ALL SELECT i + 1 FROM g WHERE i < \(to))
                SELECT i, randomblob(16) AS note_id, randomblob(32) AS note_ref, randomblob(32) AS redeem_ref, randomblob(32) AS spender,
                    randomblob(32) AS marker, randomblob(16) AS purchase_entry, randomblob(16) AS redeem_entry, randomblob(\(t.ownerKeyLength)) AS owner_key
                FROM g
                """)
        }
        let count = Int64(to - from + 1)
        try await conn.execute(
            """
            INSERT INTO issued_note(note_id, state_ref, account_id, owner_key, amount, issued_at, expires_at, note, redeemed, swept)
            SELECT k.note_id, k.note_ref, n.account_id, k.owner_key, n.amount, n.issued_at, n.expires_at, n.note, n.amount, 0
            FROM owp_keys k CROSS JOIN issued_note n WHERE n.note_id = ? ORDER BY k.i
            """, t.noteID)
        try await conn.execute(
            """
            INSERT INTO idempotency(account_id, key, operation, request_hash, response, created_at)
            SELECT d.account_id, 'owp-' || CAST(k.i AS TEXT), d.operation, d.request_hash, d.response, d.created_at
            FROM owp_keys k CROSS JOIN idempotency d WHERE d.account_id = ? AND d.key = ? ORDER BY k.i
            """, t.payer, t.idempotencyKey)
        for (ref, key, spender) in [(t.transferRef, "note_ref", "spender"), (t.redeemRef, "redeem_ref", "marker")] {
            try await conn.execute(
                """
                INSERT INTO spent_state(state_ref, spender, kind, transfer, chain, note_id, account_id, amount, funded_by, created_at)
                SELECT k.\(key), k.\(spender), s.kind, s.transfer, s.chain, k.note_id, s.account_id, s.amount, s.funded_by, s.created_at
                FROM owp_keys k CROSS JOIN spent_state s WHERE s.state_ref = ? ORDER BY k.i
                """, ref)
        }
        // Four postings per note, in the order the issuer writes them (purchase, then redemption).
        try await conn.execute(
            """
            INSERT INTO journal(entry, account_id, amount, kind, reference, created_at)
            SELECT CASE WHEN v.column1 <= 2 THEN k.purchase_entry ELSE k.redeem_entry END,
                CASE v.column1 WHEN 1 THEN CAST(? AS BIGINT) WHEN 2 THEN CAST(? AS BIGINT) WHEN 3 THEN CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END,
                CASE WHEN v.column1 IN (1, 3) THEN -CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END,
                CASE WHEN v.column1 <= 2 THEN 'purchase' ELSE 'redeem' END,
                CASE WHEN v.column1 <= 2 THEN k.note_id ELSE k.redeem_ref END, CAST(? AS BIGINT)
            FROM owp_keys k CROSS JOIN (VALUES (1), (2), (3), (4)) AS v ORDER BY k.i, v.column1
            """, t.payer, t.float, t.float, t.payee, t.amount, t.amount, Int64(Date().timeIntervalSince1970))
        let total = count * t.amount
        let entry = (0..<16).map { _ in UInt8.random(in: 0...255) }
        try await conn.execute(
            "INSERT INTO journal(entry, account_id, amount, kind, reference, created_at) VALUES (?, ?, ?, 'funding', ?, ?), (?, ?, ?, 'funding', ?, ?)",
            entry, t.funding, -total, Array("dev-funding".utf8), Int64(Date().timeIntervalSince1970),
            entry, t.payer, total, Array("dev-funding".utf8), Int64(Date().timeIntervalSince1970))
        // The payer is funded and pays the same total: its balance does not move.
        try await conn.execute("UPDATE account SET balance = balance - ? WHERE id = ?", total, t.funding)
        try await conn.execute("UPDATE account SET balance = balance + ? WHERE id = ?", total, t.payee)
        if conn.dialect == .sqlite { try await conn.execute("DROP TABLE temp.owp_keys") }
    }
}

/// The size of an issuer's database, and how much of it each big table takes.
struct DatabaseSize: Sendable {
    /// Bytes of the issuer's data: SQLite's pages (page_count × page_size, what the file holds
    /// once the WAL is checkpointed), or PostgreSQL's tables with their indexes and TOAST.
    var bytes: Int64
    /// Per table (PostgreSQL: pg_total_relation_size; SQLite: not measured).
    var tables: [String: Int64]
    /// PostgreSQL: pg_database_size (every schema of the run); SQLite: the file plus its WAL now.
    var onDisk: Int64

    static func measure(_ db: any SQLDatabase, sqlitePath: String?) async throws -> DatabaseSize {
        try await db.transaction { conn in
            switch conn.dialect {
            case .sqlite:
                let pages = try await conn.queryOne("PRAGMA page_count")?.int("page_count") ?? 0
                let size = try await conn.queryOne("PRAGMA page_size")?.int("page_size") ?? 0
                var disk: Int64 = 0
                if let sqlitePath {
                    for file in [sqlitePath, sqlitePath + "-wal"] {
                        disk += ((try? FileManager.default.attributesOfItem(atPath: file)[.size]) as? NSNumber)?.int64Value ?? 0
                    }
                }
                return DatabaseSize(bytes: pages * size, tables: [:], onDisk: disk)
            case .postgres:
                var tables: [String: Int64] = [:]
                for row in try await conn.query(
                    """
                    SELECT c.relname AS name, CAST(pg_total_relation_size(c.oid) AS BIGINT) AS bytes FROM pg_class c
                    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'
                    """)
                {
                    tables[try row.text("name")] = try row.int("bytes")
                }
                let database =
                    try await conn.queryOne("SELECT CAST(pg_database_size(current_database()) AS BIGINT) AS b")?.int("b") ?? 0
                return DatabaseSize(bytes: tables.values.reduce(0, +), tables: tables, onDisk: database)
            }
        }
    }
}
