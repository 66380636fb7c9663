import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore
import Synchronization

/// Buying notes with account money and sending money online, with the idempotency keys that
/// make both safe to retry.
extension Issuer {
    /// Turns account balance into notes owned by `walletKey`. Replaying the same idempotency
    /// key returns the same notes; the account is debited once.
    public func purchase(
        account: Int64, walletKey: PublicKeyBytes, amount: UInt64, idempotencyKey: String
    ) async throws(IssuerError) -> [Chain] {
        guard amount > 0, amount <= Amount.max else { throw .invalidField(field: "amount", reason: "must be positive") }
        try Self.checkIdempotencyKey(idempotencyKey)
        let now = self.now
        guard let key = keyring.current(at: UInt64(now)) else { throw .storage("no issuing key is valid now; rotate keys") }
        let requestHash = Array(
            SHA256.hash(data: Array("purchase".utf8) + walletKey.bytes + withUnsafeBytes(of: amount, Array.init)))
        let noteID = NoteID(uncheckedBytes: random(16))
        let entry = random(16)
        let bytes: [UInt8]
        do throws(IssuerError) {
            bytes = try await transaction { conn in
                if let replay = try await Self.idempotentReplay(conn, account, idempotencyKey, requestHash) { return replay }
                let acct = try await Self.loadAccount(conn, account)
                if let refusal = acct.frozenRefusal { throw refusal }
                guard try await Self.keyOwner(conn, walletKey) == account else { throw IssuerError.walletKeyNotRegistered }
                let outstanding =
                    try await conn.queryOne(
                        "SELECT CAST(COALESCE(SUM(amount - redeemed), 0) AS BIGINT) AS v FROM issued_note WHERE owner_key = ? AND swept = 0",
                        walletKey.bytes)?.uint("v") ?? 0
                guard outstanding + amount <= self.config.maxOfflineHolding else {
                    throw IssuerError.holdingLimitExceeded(
                        limit: self.config.maxOfflineHolding, outstanding: outstanding, requested: amount,
                        currency: self.config.currency)
                }
                let note = try IssuedNote.issue(
                    noteID: noteID, currency: self.config.currency, amount: amount, owner: walletKey, issuedAt: UInt64(now),
                    expiresAt: UInt64(now) + self.config.noteLifetime, issuer: key.signer)
                let float = try await self.systemAccount(conn, .float)
                try await Ledger.post(
                    conn, kind: "purchase", reference: noteID.bytes,
                    postings: [
                        .init(account: account, amount: -Int64(amount), mustStayNonNegative: true),
                        .init(account: float, amount: Int64(amount), sharded: true),
                    ],
                    entry: entry, now: now)
                try await conn.execute(
                    "INSERT INTO issued_note(note_id, state_ref, account_id, owner_key, amount, issued_at, expires_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    noteID.bytes, note.stateRef.bytes, account, walletKey.bytes, amount, now, Int64(note.expiresAt), note.encoded)
                let response = Chain(note: note).encoded
                try await Self.storeIdempotent(conn, account, idempotencyKey, "purchase", requestHash, response, now)
                return response
            }
        } catch {
            // A concurrent request with the same key won the race: it committed while this one
            // waited, which then failed on the key (a storage error) or on the balance or holding
            // the winner used. Answer what the winner stored, as any replay of the key does
            // (refreshes of one chain share a key, so concurrent ones all answer the same notes).
            // Only those errors can come from the race; the others are answered as they are,
            // without a second transaction, and so is this one if the lookup itself fails.
            switch error {
            case .storage, .insufficientFunds, .holdingLimitExceeded: break
            default: throw error
            }
            let stored = try? await transaction { conn in
                try await Self.idempotentReplay(conn, account, idempotencyKey, requestHash)
            }
            guard let replay = stored ?? nil else { throw error }
            bytes = replay
        }
        CrashPoints.reach(.issuerPurchaseCommitted)
        do { return [try Chain(decoding: bytes)] } catch { throw .storage("stored purchase response is damaged") }
    }

    static func checkIdempotencyKey(_ key: String) throws(IssuerError) {
        guard (8...128).contains(key.utf8.count), key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw .invalidField(field: "idempotency_key", reason: "8 to 128 printable ASCII characters")
        }
    }

    static func idempotentReplay(
        _ conn: any SQLConnection, _ account: Int64, _ key: String, _ hash: [UInt8]
    ) async throws -> [UInt8]? {
        guard
            let row = try await conn.queryOne(
                "SELECT request_hash, response FROM idempotency WHERE account_id = ? AND key = ?", account, key)
        else { return nil }
        guard try row.blob("request_hash") == hash else { throw IssuerError.idempotencyConflict }
        return try row.blob("response")
    }

    static func storeIdempotent(
        _ conn: any SQLConnection, _ account: Int64, _ key: String, _ operation: String, _ hash: [UInt8], _ response: [UInt8],
        _ now: Int64
    ) async throws {
        // A concurrent request with the same key fails here and rolls back whole: at most one wins.
        try await conn.execute(
            "INSERT INTO idempotency(account_id, key, operation, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            account, key, operation, hash, response, now)
    }

    // MARK: Online send

    /// Moves money between two accounts, once per idempotency key.
    public func send(
        from account: Int64, toEmail: String, amount: UInt64, idempotencyKey: String
    ) async throws(IssuerError) -> Account {
        guard amount > 0, amount <= Amount.max else { throw .invalidField(field: "amount", reason: "must be positive") }
        try Self.checkIdempotencyKey(idempotencyKey)
        let now = self.now
        let entry = random(16)
        // By the normalized address only, never the look-alike skeleton: a payer who types a
        // plain address must not reach an account that merely looks like it.
        let email = try EmailAddress(toEmail, field: "to").normalized
        let requestHash = Array(
            SHA256.hash(data: Array("send".utf8) + Array(email.utf8) + withUnsafeBytes(of: amount, Array.init)))
        return try await transaction { conn in
            if try await Self.idempotentReplay(conn, account, idempotencyKey, requestHash) == nil {
                let sender = try await Self.loadAccount(conn, account)
                if let refusal = sender.frozenRefusal { throw refusal }
                guard
                    let to = try await conn.queryOne("SELECT id FROM account WHERE email = ? AND role <> 'system'", email)?.int(
                        "id"),
                    to != account
                else { throw IssuerError.invalidField(field: "to", reason: "no other account with this email") }
                try await Ledger.post(
                    conn, kind: "send", reference: nil,
                    postings: [
                        .init(account: account, amount: -Int64(amount), mustStayNonNegative: true),
                        .init(account: to, amount: Int64(amount)),
                    ],
                    entry: entry, now: now)
                try await Self.storeIdempotent(conn, account, idempotencyKey, "send", requestHash, [], now)
            }
            return try await Self.loadAccount(conn, account)
        }
    }
}
