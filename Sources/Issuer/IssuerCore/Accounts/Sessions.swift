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
    /// was stolen or replayed: its whole family is revoked, the audit log records
    /// `refresh_reuse`, and the call fails — except within `config.refreshReuseWindow` seconds
    /// of the rotation while the successor is still unused: that is a client whose answer was
    /// lost, and it gets the same successor again.
    ///
    /// The successor is derived, not random: HMAC-SHA256 of the old token under the server
    /// secret. So a repeated rotation can return the same token while the database still holds
    /// only token hashes (storing the successor, even encrypted, would put a live credential
    /// at rest); without the secret the old token reveals nothing of its successor.
    public func rotateRefreshToken(_ token: String) async throws(IssuerError) -> (account: Int64, refreshToken: String) {
        guard let raw = Base64URL.decode(token), raw.count == 32 else { throw .sessionEnded }
        let now = self.now
        let next = successor(of: raw)
        let hash = Array(SHA256.hash(data: raw))
        let nextHash = Array(SHA256.hash(data: next))
        let window = config.refreshReuseWindow
        let result: Result<Int64, IssuerError> = try await transaction { conn in
            // Claiming the token and checking it in one statement: of concurrent rotations,
            // one claims it and the others see it used (and take the replay path below).
            if let claimed = try await conn.queryOne(
                "UPDATE refresh_token SET used = 1, used_at = ? WHERE token_hash = ? AND used = 0 AND revoked = 0 AND expires_at > ? RETURNING family, account_id",
                now, hash, now)
            {
                let account = try claimed.int("account_id")
                try await conn.execute(
                    "INSERT INTO refresh_token(token_hash, family, account_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
                    nextHash, try claimed.blob("family"), account, now + Self.refreshLifetime, now)
                return .success(account)
            }
            guard
                let row = try await conn.queryOne(
                    "SELECT family, account_id, used, used_at, revoked FROM refresh_token WHERE token_hash = ?", hash)
            else { return .failure(.sessionEnded) }
            guard try row.int("used") != 0 else { return .failure(.sessionEnded) }  // revoked or expired
            let account = try row.int("account_id")
            if try row.int("revoked") == 0, let usedAt = try row.optionalInt("used_at"), now - usedAt <= window,
                let successor = try await conn.queryOne("SELECT used, revoked FROM refresh_token WHERE token_hash = ?", nextHash),
                try successor.int("used") == 0, try successor.int("revoked") == 0
            {
                return .success(account)  // the answer was lost: the same successor again
            }
            try await conn.execute("UPDATE refresh_token SET revoked = 1 WHERE family = ?", try row.blob("family"))
            try await self.audit(conn, actor: account, "refresh_reuse", "family revoked")
            return .failure(.sessionEnded)
        }
        return (try result.get(), Base64URL.encode(next))
    }

    /// The token that replaces `token` on rotation (see `rotateRefreshToken`).
    func successor(of token: [UInt8]) -> [UInt8] {
        Array(
            HMAC<SHA256>.authenticationCode(
                for: Array("offline-wallet/v1/refresh-successor".utf8) + [0] + token, using: challengeSecret.value))
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

    /// The rate-limit bucket of login attempts for `email`: the address as the account lookup
    /// normalizes it (`EmailAddress`), so every spelling that reaches one account (spaces around
    /// it, letter case, composed or decomposed accents) shares one limit. Text that is not an
    /// address reaches no account and is never checked against a password; it all shares one
    /// bucket of its own.
    public static func loginBucket(email: String) -> String {
        guard let address = try? EmailAddress(email) else { return "login-not-an-address" }
        return "login:" + address.normalized
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
            if let before {
                sql += " AND id < ?"
                binds.append(before)
            }
            if let kind {
                sql += " AND kind = ?"
                binds.append(kind)
            }
            sql += " ORDER BY id DESC LIMIT ?"
            binds.append(limit)
            return try await conn.query(sql, binds).map {
                JournalEntry(
                    id: try $0.int("id"), kind: try $0.text("kind"), amount: try $0.int("amount"),
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
