import Crypto
import Foundation
import OfflineNotes
import SQLStore

/// Refresh tokens (rotating, stored hashed) and rate-limit counters, both in the database.
extension Issuer {
    static let refreshLifetime: Int64 = 30 * 86_400

    /// A new refresh token for `account`, in a new family unless `family` is given.
    public func issueRefreshToken(account: Int64, family: [UInt8]? = nil) async throws(IssuerError) -> String {
        let token = random(32)
        let family = family ?? random(16)
        let now = self.now
        try await transaction { conn in
            try await conn.execute(
                "INSERT INTO refresh_token(token_hash, family, account_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
                Array(SHA256.hash(data: token)), family, account, now + Self.refreshLifetime, now)
        }
        return Base64URL.encode(token)
    }

    /// Exchanges a refresh token for a new one (rotation). A token presented twice means it
    /// was stolen or replayed: its whole family is revoked and the call fails.
    public func rotateRefreshToken(_ token: String) async throws(IssuerError) -> (account: Int64, refreshToken: String) {
        guard let raw = Base64URL.decode(token), raw.count == 32 else { throw .badCredentials }
        let now = self.now
        let next = random(32)
        let result: Result<(Int64, [UInt8]), IssuerError> = try await transaction { conn in
            guard let row = try await conn.queryOne(
                "SELECT family, account_id, expires_at, used, revoked FROM refresh_token WHERE token_hash = ?",
                Array(SHA256.hash(data: raw)))
            else { return .failure(.badCredentials) }
            let family = try row.blob("family")
            if try row.int("used") != 0 {
                try await conn.execute("UPDATE refresh_token SET revoked = 1 WHERE family = ?", family)
                try await self.audit(conn, actor: try row.int("account_id"), "refresh_reuse", "family revoked")
                return .failure(.badCredentials)
            }
            guard try row.int("revoked") == 0, try row.int("expires_at") > now else { return .failure(.badCredentials) }
            let account = try row.int("account_id")
            try await conn.execute("UPDATE refresh_token SET used = 1 WHERE token_hash = ?", Array(SHA256.hash(data: raw)))
            try await conn.execute(
                "INSERT INTO refresh_token(token_hash, family, account_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
                Array(SHA256.hash(data: next)), family, account, now + Self.refreshLifetime, now)
            return .success((account, family))
        }
        let (account, _) = try result.get()
        return (account, Base64URL.encode(next))
    }

    /// Revokes the family of a refresh token (logout).
    public func revokeRefreshToken(_ token: String) async throws(IssuerError) {
        guard let raw = Base64URL.decode(token) else { return }
        try await transaction { conn in
            try await conn.execute(
                "UPDATE refresh_token SET revoked = 1 WHERE family = (SELECT family FROM refresh_token WHERE token_hash = ?)",
                Array(SHA256.hash(data: raw)))
        }
    }

    /// Counts a hit in a fixed window. Returns nil when allowed, else seconds until the window
    /// ends. Counted locally and shared through the database in batches (`RateLimiter`).
    public func rateLimit(bucket: String, limit: Int, windowSeconds: Int64) async throws(IssuerError) -> Int64? {
        rateLimiter.hit(bucket: bucket, limit: limit, windowSeconds: windowSeconds, now: now, database: database)
    }

    /// Publishes pending rate-limit hits now (tests, shutdown).
    public func flushRateLimits() async throws(IssuerError) {
        do { try await rateLimiter.flush(database) } catch { throw .storage(String(describing: error)) }
    }

    /// Deletes expired refresh tokens and old rate-limit windows.
    public func pruneSessions() async throws(IssuerError) {
        let now = self.now
        try await transaction { conn in
            try await conn.execute("DELETE FROM refresh_token WHERE expires_at < ?", now)
            try await conn.execute("DELETE FROM rate_limit WHERE window_start < ?", now - 3_600)
        }
    }

    /// Journal entries of an account, newest first, older than `before` when given.
    public func history(account: Int64, limit: Int, before: Int64?, kind: String?) async throws(IssuerError) -> [JournalEntry] {
        let limit = max(1, min(limit, 200))
        return try await transaction { conn in
            var sql = "SELECT id, kind, amount, reference, created_at FROM journal WHERE account_id = ?"
            var binds: [any SQLBindable] = [account]
            if let before { sql += " AND id < ?"; binds.append(before) }
            if let kind { sql += " AND kind = ?"; binds.append(kind) }
            sql += " ORDER BY id DESC LIMIT ?"
            binds.append(limit)
            return try await conn.query(sql, binds).map {
                JournalEntry(id: try $0.int("id"), kind: try $0.text("kind"), amount: try $0.int("amount"),
                             reference: try $0.optionalBlob("reference"), createdAt: try $0.int("created_at"))
            }
        }
    }
}

/// One movement on an account.
public struct JournalEntry: Sendable, Equatable {
    public let id: Int64
    public let kind: String
    public let amount: Int64
    public let reference: [UInt8]?
    public let createdAt: Int64
}
