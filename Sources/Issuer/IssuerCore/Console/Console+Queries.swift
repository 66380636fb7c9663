import Crypto
import Foundation
import OfflineNotes
import SQLStore

// The operator console's reads and its sessions (docs/server.md, "Operator console"). Every
// query is in the SQL both engines share, with `?` placeholders; the console module renders
// what these return and never touches the database itself.

/// The books at a glance, read in one transaction.
public struct ConsoleOverview: Sendable, Equatable {
    /// Money put in from outside, net of money paid out: minus `system:funding`'s balance.
    public var moneyIn: Int64
    /// Sum of user and admin balances (debts included, as negative balances).
    public var settledBalances: Int64
    /// What accounts in debt owe (the magnitude of their negative balances).
    public var debts: Int64
    /// Offline notes issued and not yet redeemed or refunded (`system:float`).
    public var float: Int64
    /// Unredeemed value of unswept notes, counted from the notes themselves (must equal `float`).
    public var unredeemedNotes: Int64
    /// Withdrawals debited and not yet paid or refused, and escrow deposits nobody claimed.
    public var pendingWithdrawals: Int64
    public var unclaimed: Int64
    public var accounts: Int64
    public var frozenAccounts: Int64
    public var fraudCases: Int64
    public var openFraudCases: Int64
    /// What `Issuer.checkLedger()` found (empty: every entry balances, every balance equals its journal).
    public var ledgerProblems: [String]

    /// Money in must equal everything the books owe: balances + float + pending withdrawals + unclaimed.
    public var owed: Int64 {
        settledBalances.addingReportingOverflow(float).partialValue
            .addingReportingOverflow(pendingWithdrawals).partialValue
            .addingReportingOverflow(unclaimed).partialValue
    }

    /// The books reconcile: nothing `checkLedger` objects to, money in equals what is owed,
    /// and the float equals the notes.
    public var reconciles: Bool { ledgerProblems.isEmpty && moneyIn == owed && float == unredeemedNotes }
}

/// Counts and sums per time bucket, oldest first, for the overview's charts.
public struct ConsoleSeries: Sendable, Equatable {
    public struct Bucket: Sendable, Equatable {
        /// Unix time the bucket starts.
        public let start: Int64
        public let count: Int64
        public let amount: Int64
    }

    public let bucketSeconds: Int64
    public let buckets: [Bucket]
}

/// A registered wallet key.
public struct ConsoleWalletKey: Sendable, Equatable {
    public let publicKey: PublicKeyBytes
    public let accountID: Int64
    public let email: String
    public let registeredAt: Int64
}

/// A wallet key a restore replaced: a restored wallet exchanged the notes it held for notes of
/// `replacedBy` (docs/protocol.md §5.2 rule 5). What the old device pays later is a restore conflict.
public struct RetiredWalletKey: Sendable, Equatable {
    public let replacedBy: PublicKeyBytes
    /// When the first of its notes was exchanged.
    public let at: Int64
}

/// How a double-spent state was first spent (its `spent_state` row).
public struct ConsoleFirstSpend: Sendable, Equatable {
    /// "transfer" or "redeem".
    public let kind: String
    /// The redeeming account, for a redemption.
    public let account: Int64?
    public let amount: Int64
    public let createdAt: Int64
}

/// A journal movement between two accounts that a fraud case caused (the later receiver paid
/// from the cheater's account, or a restore conflict's payee from the restoring account).
public struct ConsoleMovement: Sendable, Equatable {
    public let journalID: Int64
    public let kind: String
    public let from: Int64
    public let to: Int64
    public let amount: Int64
    public let createdAt: Int64
}

/// A console login: the signed-in account and the form token its session requires.
public struct ConsoleSession: Sendable, Equatable {
    public let accountID: Int64
    public let email: String
    public let role: String
    /// The per-session CSRF token every form carries (base64url of 32 random bytes).
    public let csrf: String
    public let expiresAt: Int64
}

/// Which fraud cases to list.
public struct FraudCaseFilter: Sendable, Equatable {
    /// `open`, `recovered` or `restore_conflict`; nil for all.
    public var status: String?
    /// Cases naming this account as the cheater or the one paid.
    public var account: Int64?

    public init(status: String? = nil, account: Int64? = nil) {
        self.status = status
        self.account = account
    }
}

/// Which audit lines to list.
public struct AuditFilter: Sendable, Equatable {
    public var action: String?
    public var actor: Int64?
    /// Lines whose detail contains this text.
    public var text: String?
    public var before: Int64?

    public init(action: String? = nil, actor: Int64? = nil, text: String? = nil, before: Int64? = nil) {
        self.action = action
        self.actor = actor
        self.text = text
        self.before = before
    }
}

extension Issuer {
    // MARK: Overview

    /// The books at a glance (console overview).
    public func consoleOverview() async throws(IssuerError) -> ConsoleOverview {
        let problems = try await checkLedger()
        return try await transaction { conn in
            let system = { (account: SystemAccount) in Ledger.balance(of: account) }
            guard
                let row = try await conn.queryOne(
                    """
                    SELECT
                        CAST(-\(system(.funding)) AS BIGINT) AS money_in,
                        CAST((SELECT COALESCE(SUM(balance), 0) FROM account WHERE role <> 'system') AS BIGINT) AS balances,
                        CAST((SELECT COALESCE(SUM(-balance), 0) FROM account WHERE role <> 'system' AND balance < 0) AS BIGINT) AS debts,
                        CAST(\(system(.float)) AS BIGINT) AS float,
                        CAST((SELECT COALESCE(SUM(amount - redeemed), 0) FROM issued_note WHERE swept = 0) AS BIGINT) AS notes,
                        CAST(COALESCE(\(system(.withdrawals)), 0) AS BIGINT) AS withdrawals,
                        CAST(COALESCE(\(system(.unclaimed)), 0) AS BIGINT) AS unclaimed,
                        CAST((SELECT COUNT(*) FROM account WHERE role <> 'system') AS BIGINT) AS accounts,
                        CAST((SELECT COUNT(*) FROM account WHERE role <> 'system' AND frozen <> 0) AS BIGINT) AS frozen,
                        CAST((SELECT COUNT(*) FROM fraud_case) AS BIGINT) AS cases,
                        CAST((SELECT COUNT(*) FROM fraud_case WHERE status = 'open') AS BIGINT) AS open_cases
                    """)
            else { throw IssuerError.storage("overview query returned nothing") }
            return ConsoleOverview(
                moneyIn: try row.int("money_in"), settledBalances: try row.int("balances"), debts: try row.int("debts"),
                float: try row.int("float"), unredeemedNotes: try row.int("notes"),
                pendingWithdrawals: try row.int("withdrawals"),
                unclaimed: try row.int("unclaimed"), accounts: try row.int("accounts"), frozenAccounts: try row.int("frozen"),
                fraudCases: try row.int("cases"), openFraudCases: try row.int("open_cases"), ledgerProblems: problems)
        }
    }

    /// Redemptions credited (journal credits of kind redeem, fraud_recovery, restore_conflict)
    /// per bucket of `bucketSeconds`, `count` buckets ending with the one holding `now`.
    public func redemptionSeries(bucketSeconds: Int64, count: Int, now: Int64? = nil) async throws(IssuerError) -> ConsoleSeries {
        try await series(
            table: "journal", filter: "kind IN ('redeem', 'fraud_recovery', 'restore_conflict') AND amount > 0",
            bucketSeconds: bucketSeconds, count: count, now: now ?? self.now)
    }

    /// Fraud cases opened (any status) per bucket, as `redemptionSeries`.
    public func fraudCaseSeries(bucketSeconds: Int64, count: Int, now: Int64? = nil) async throws(IssuerError) -> ConsoleSeries {
        try await series(table: "fraud_case", filter: "1 = 1", bucketSeconds: bucketSeconds, count: count, now: now ?? self.now)
    }

    func series(
        table: String, filter: String, bucketSeconds: Int64, count: Int, now: Int64
    ) async throws(IssuerError) -> ConsoleSeries {
        guard bucketSeconds > 0, (1...1_000).contains(count) else {
            throw .invalidField(field: "range", reason: "1 to 1000 buckets of at least a second")
        }
        // Buckets aligned to whole multiples of their length (UTC days, hours).
        let first = (now / bucketSeconds - Int64(count - 1)) * bucketSeconds
        let rows = try await transaction { conn in
            try await conn.query(
                """
                SELECT CAST((created_at - CAST(? AS BIGINT)) / CAST(? AS BIGINT) AS BIGINT) AS bucket,
                       CAST(COUNT(*) AS BIGINT) AS n, CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total
                FROM \(table) WHERE \(filter) AND created_at >= ? GROUP BY bucket
                """,
                first, bucketSeconds, first)
        }
        var counts = [Int64](repeating: 0, count: count)
        var sums = [Int64](repeating: 0, count: count)
        for row in rows {
            guard let i = Int(exactly: (try? row.int("bucket")) ?? -1), counts.indices.contains(i) else { continue }
            counts[i] = (try? row.int("n")) ?? 0
            sums[i] = (try? row.int("total")) ?? 0
        }
        return ConsoleSeries(
            bucketSeconds: bucketSeconds,
            buckets: (0..<count).map { .init(start: first + Int64($0) * bucketSeconds, count: counts[$0], amount: sums[$0]) })
    }

    // MARK: Accounts

    /// User and admin accounts whose id is `search` or whose email contains it (case-insensitive),
    /// newest first; all of them when `search` is empty.
    public func searchAccounts(_ search: String, limit: Int = 100) async throws(IssuerError) -> [Account] {
        let text = search.trimmingCharacters(in: .whitespaces).lowercased()
        var sql = "SELECT id FROM account WHERE role <> 'system'"
        var binds: [any SQLBindable] = []
        if !text.isEmpty {
            sql += " AND (email LIKE ? ESCAPE '\\'"
            binds.append("%" + Self.likeEscaped(text) + "%")
            if let id = Int64(text) {
                sql += " OR id = ?"
                binds.append(id)
            }
            sql += ")"
        }
        sql += " ORDER BY id DESC LIMIT ?"
        binds.append(max(1, min(limit, 1_000)))
        return try await transaction { conn in
            var accounts: [Account] = []
            for row in try await conn.query(sql, binds) { accounts.append(try await Self.loadAccount(conn, try row.int("id"))) }
            return accounts
        }
    }

    /// `text` for a LIKE pattern with `\` as the escape character: `%`, `_` and `\` match themselves.
    static func likeEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// The wallet keys registered to an account, oldest first.
    public func walletKeys(account: Int64) async throws(IssuerError) -> [ConsoleWalletKey] {
        let rows = try await transaction { conn in
            try await conn.query(
                """
                SELECT k.public_key AS public_key, k.account_id AS account_id, a.email AS email, k.registered_at AS registered_at
                FROM wallet_key k JOIN account a ON a.id = k.account_id WHERE k.account_id = ? ORDER BY k.registered_at, k.public_key
                """,
                account)
        }
        return try rows.map { row throws(IssuerError) in try Self.walletKeyRow(row) }
    }

    // MARK: Audit

    /// Audit lines matching `filter`, newest first.
    public func auditLog(matching filter: AuditFilter, limit: Int = 100) async throws(IssuerError) -> [AuditEntry] {
        var sql = "SELECT id, actor_account, action, detail, created_at FROM audit_log WHERE id < ?"
        var binds: [any SQLBindable] = [filter.before ?? Int64.max]
        if let action = filter.action {
            sql += " AND action = ?"
            binds.append(action)
        }
        if let actor = filter.actor {
            sql += " AND actor_account = ?"
            binds.append(actor)
        }
        if let text = filter.text, !text.isEmpty {
            sql += " AND detail LIKE ? ESCAPE '\\'"
            binds.append("%" + Self.likeEscaped(text) + "%")
        }
        sql += " ORDER BY id DESC LIMIT ?"
        binds.append(max(1, min(limit, 1_000)))
        return try await transaction { conn in
            try await conn.query(sql, binds).map {
                AuditEntry(
                    id: try $0.int("id"), actor: try $0.optionalInt("actor_account"), action: try $0.text("action"),
                    detail: try $0.text("detail"), createdAt: try $0.int("created_at"))
            }
        }
    }

    /// Every action name in the audit log, for the filter's choices.
    public func auditActions() async throws(IssuerError) -> [String] {
        try await transaction { conn in
            try await conn.query("SELECT DISTINCT action FROM audit_log ORDER BY action").map { try $0.text("action") }
        }
    }

    // MARK: Settings

    /// Schema versions with the time each was applied.
    public func schemaVersions() async throws(IssuerError) -> [(version: Int64, appliedAt: Int64)] {
        try await transaction { conn in
            try await conn.query("SELECT version, applied_at FROM schema_migration ORDER BY version").map {
                (try $0.int("version"), try $0.int("applied_at"))
            }
        }
    }

    // MARK: Console sessions

    /// Opens a console session for an admin account: a random token for the cookie (stored as
    /// its SHA-256) and a random CSRF token for its forms, valid `lifetime` seconds. Expired
    /// sessions are deleted on the way; the login is audited.
    public func openConsoleSession(
        account: Int64, lifetime: Int64, from address: String
    ) async throws(IssuerError) -> (token: String, session: ConsoleSession) {
        let token = random(32)
        let csrf = random(32)
        let now = self.now
        let session = try await transaction { conn -> ConsoleSession in
            let acct = try await Self.loadAccount(conn, account)
            guard acct.role == "admin" else { throw IssuerError.notOwner }
            try await conn.execute("DELETE FROM console_session WHERE expires_at <= ?", now)
            try await conn.execute(
                "INSERT INTO console_session(token_hash, account_id, csrf, created_at, expires_at, seen_at) VALUES (?, ?, ?, ?, ?, ?)",
                Array(SHA256.hash(data: token)), account, csrf, now, now + lifetime, now)
            try await audit(conn, actor: account, "console_login", "\(acct.email) from \(address)")
            return ConsoleSession(
                accountID: account, email: acct.email, role: acct.role, csrf: Base64URL.encode(csrf), expiresAt: now + lifetime)
        }
        return (Base64URL.encode(token), session)
    }

    /// The live session of a cookie token, or nil: unknown, expired, or idle longer than
    /// `idleTimeout` seconds (both are deleted). The account's role is read fresh, so a demoted
    /// admin's session shows role `user` and the console refuses it.
    public func consoleSession(token: String, idleTimeout: Int64) async throws(IssuerError) -> ConsoleSession? {
        guard let raw = Base64URL.decode(token), raw.count == 32 else { return nil }
        let hash = Array(SHA256.hash(data: raw))
        let now = self.now
        return try await transaction { conn -> ConsoleSession? in
            guard
                let row = try await conn.queryOne(
                    """
                    SELECT s.account_id AS account_id, s.csrf AS csrf, s.expires_at AS expires_at, s.seen_at AS seen_at, a.email AS email, a.role AS role
                    FROM console_session s JOIN account a ON a.id = s.account_id WHERE s.token_hash = ?
                    """,
                    hash)
            else { return nil }
            let expires = try row.int("expires_at")
            let seen = try row.int("seen_at")
            guard expires > now, now - seen <= idleTimeout else {
                try await conn.execute("DELETE FROM console_session WHERE token_hash = ?", hash)
                return nil
            }
            // One write a minute at most, not one per page.
            if now - seen >= 60 {
                try await conn.execute("UPDATE console_session SET seen_at = ? WHERE token_hash = ?", now, hash)
            }
            return ConsoleSession(
                accountID: try row.int("account_id"), email: try row.text("email"), role: try row.text("role"),
                csrf: Base64URL.encode(try row.blob("csrf")), expiresAt: expires)
        }
    }

    /// Ends a console session (logout); audited when there was one.
    public func closeConsoleSession(token: String) async throws(IssuerError) {
        guard let raw = Base64URL.decode(token), raw.count == 32 else { return }
        let hash = Array(SHA256.hash(data: raw))
        try await transaction { conn in
            let rows = try await conn.query("DELETE FROM console_session WHERE token_hash = ? RETURNING account_id", hash)
            if let account = try rows.first?.int("account_id") {
                try await audit(conn, actor: account, "console_logout", "session ended")
            }
        }
    }
}

extension Issuer {
    /// An admin's reason as the audit log takes it (3–500 characters after trimming, one
    /// line), or the refusal that says what is wrong: the console checks it before it asks
    /// for confirmation.
    public static func checkAdminReason(_ reason: String) throws(IssuerError) -> String { try adminReason(reason) }

    /// Records a console login refused to a signed-in non-admin account (right password, wrong role).
    public func recordConsoleLoginRefused(account: Int64, from address: String) async throws(IssuerError) {
        try await transaction { conn in
            try await audit(conn, actor: account, "console_login_refused", "not an admin account, from \(address)")
        }
    }
}
