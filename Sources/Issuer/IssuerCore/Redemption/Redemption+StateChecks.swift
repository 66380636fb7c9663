import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore

// What a wallet asks about states without redeeming them: announcing a payment, reporting a
// double spend it caught, the status of states, and the sweep of expired ones.

extension Issuer {
    /// A payer online first registers its signed transfer (the chain's last one), so the state
    /// counts as spent by it before the payee syncs. Conflicts open fraud cases. No credit.
    public func announce(account: Int64, chain bytes: [UInt8]) async throws(IssuerError) -> RedeemResult {
        let state: VerifiedState
        do { state = try verifier.verifyChain(bytes, now: UInt64(now), checkExpiry: false) } catch { throw .invalidChain(error) }
        guard let last = state.spends.last else { throw .invalidField(field: "chain", reason: "has no transfer to announce") }
        let result = try await transaction { conn -> RedeemResult in
            guard try await Self.keyOwner(conn, last.owner) == account else { throw IssuerError.notOwner }
            if let fraud = try await self.recordSpends(conn, state, beneficiary: nil) {
                return .conflict(fraudCase: fraud.caseID, credited: 0)
            }
            return .credited(amount: 0)
        }
        CrashPoints.reach(.issuerAnnounceCommitted)
        return result
    }

    /// Takes a fraud proof (docs/protocol.md §7) from any wallet that caught a double spend
    /// offline: a chain proving a state and two different transfers of it, both signed by its
    /// owner. Both spends are recorded; the second opens (or finds) the fraud case naming the
    /// owner and freezes its account. No one is credited: the reporter refused the payment.
    public func reportFraud(
        account: Int64, chain: [UInt8], first: [UInt8], second: [UInt8]
    ) async throws(IssuerError)
        -> RedeemResult
    {
        let states: [VerifiedState]
        do {
            let proving = try Chain(decoding: chain)
            let transfers = [try Transfer(decoding: first), try Transfer(decoding: second)]
            guard transfers[0].hash != transfers[1].hash else {
                throw IssuerError.invalidField(field: "second", reason: "is the same transfer as 'first': no double spend")
            }
            // Verifying each transfer appended to the proving chain checks that it spends that
            // state and carries its owner's signature (the chain checks the issuer's). Verified
            // as a value, not re-encoded: 255 transfers plus one has no encoding (it trapped).
            states = try transfers.map { t throws(VerificationError) in
                try verifier.verify(proving.appending(t, holding: 0), now: UInt64(now), checkExpiry: false)
            }
        } catch let error as IssuerError {
            throw error
        } catch let error as VerificationError {
            throw .invalidChain(error)
        } catch {
            throw .invalidField(field: "chain", reason: "\(error)")
        }
        _ = account  // any signed-in wallet may report; the proof stands on its signatures
        let result = try await transaction { conn -> RedeemResult in
            var fraud = try await self.recordSpends(conn, states[0], beneficiary: nil)
            if let second = try await self.recordSpends(conn, states[1], beneficiary: nil) { fraud = second }
            guard let fraud else { throw IssuerError.invalidField(field: "second", reason: "does not conflict with 'first'") }
            return .conflict(fraudCase: fraud.caseID, credited: 0)
        }
        CrashPoints.reach(.issuerFraudCommitted)
        return result
    }

    /// What the issuer knows of each state: for wallets restored from a backup.
    public func stateStatus(_ refs: [StateRef]) async throws(IssuerError) -> [StateRef: StateStatus] {
        guard refs.count <= 512 else { throw .invalidField(field: "states", reason: "at most 512 per request") }
        return try await transaction { conn in
            var out: [StateRef: StateStatus] = [:]
            for ref in refs {
                if let row = try await conn.queryOne("SELECT kind FROM spent_state WHERE state_ref = ?", ref.bytes) {
                    out[ref] = try row.text("kind") == "redeem" ? .redeemed : .spent
                } else if let note = try await conn.queryOne("SELECT swept FROM issued_note WHERE state_ref = ?", ref.bytes) {
                    out[ref] = try note.int("swept") != 0 ? .refunded : .unspent
                } else {
                    out[ref] = .unknown
                }
            }
            return out
        }
    }

    /// Refunds what stayed unredeemed of notes past expiry + grace to the last holders the
    /// issuer knows (docs/protocol.md §5.2 rule 4).
    /// Returns the number of notes swept.
    @discardableResult
    public func sweepExpired() async throws(IssuerError) -> Int {
        let now = self.now
        let cutoff = now - Int64(clamping: config.redemptionGrace)
        let swept = try await transaction { conn -> Int in
            // PostgreSQL: the notes are locked as they are read (as a redemption batch locks
            // them), so a batch that holds one (its `redeemed` updated, not committed) is waited
            // for, and what it redeemed is not refunded as well; a batch that comes after finds
            // the note swept and does not credit it (`Ledger.Deltas`). SQLite has one writer at
            // a time.
            let due = try await conn.query(
                "SELECT note_id, state_ref, owner_key, account_id, amount, redeemed FROM issued_note WHERE swept = 0 AND expires_at <= ? ORDER BY expires_at LIMIT 1000"
                    + (conn.dialect == .postgres ? " FOR NO KEY UPDATE" : ""),
                cutoff)
            let float = try await self.systemAccount(conn, .float)
            for row in due {
                let remaining = try row.int("amount") - row.int("redeemed")
                let noteID = try row.blob("note_id")
                if remaining > 0 {
                    // To the last holders the issuer knows, not blindly to the purchaser (§5.2 rule 4).
                    let holders = try await self.lastHolders(
                        conn, noteID: noteID, root: try row.blob("state_ref"), rootOwner: try row.blob("owner_key"),
                        purchaser: try row.int("account_id"), remaining: remaining)
                    var byAccount: [Int64: Int64] = [:]
                    for holder in holders { byAccount[holder.account, default: 0] += holder.amount }
                    try await Ledger.post(
                        conn, kind: "expiry_refund", reference: noteID,
                        postings: [.init(account: float, amount: -remaining, sharded: true)]
                            + byAccount.sorted { $0.key < $1.key }.map { .init(account: $0.key, amount: $0.value) },
                        entry: self.random(16), now: now)
                }
                // The losing side of a double spend of this note was never in the float: what an
                // honest holder carried on there (spent onward, announced or redeemed) goes to its
                // last holders from the cheater's account, as a later receiver is paid at redemption.
                for (cheater, holders) in try await self.losingBranchHolders(conn, noteID: noteID) {
                    try await Ledger.post(
                        conn, kind: "expiry_refund", reference: noteID,
                        postings: [.init(account: cheater, amount: -holders.values.reduce(0, +))]
                            + holders.sorted { $0.key < $1.key }.map { .init(account: $0.key, amount: $0.value) },
                        entry: self.random(16), now: now)
                }
                try await conn.execute("UPDATE issued_note SET swept = 1, redeemed = amount WHERE note_id = ?", noteID)
                CrashPoints.reach(.issuerSweepInTransaction)
            }
            return due.count
        }
        if swept > 0 { CrashPoints.reach(.issuerSweepCommitted) }
        return swept
    }

    /// Fraud cases, newest first, with both signed transfers (admin).
    public func fraudCases(limit: Int = 100) async throws(IssuerError) -> [FraudCase] {
        try await transaction { conn in
            try await conn.query("SELECT * FROM fraud_case ORDER BY id DESC LIMIT ?", max(1, min(limit, 1000))).map(
                Self.fraudCaseRow)
        }
    }
}

/// A detected double spend with its evidence.
public struct FraudCase: Sendable, Equatable {
    public let id: Int64
    public let state: StateRef
    public let cheaterKey: PublicKeyBytes
    public let cheaterAccount: Int64?
    /// "transfer" (two transfers) or "redeem" (the holder redeemed a state it had spent).
    public let firstKind: String
    public let firstTransfer: [UInt8]?
    public let secondTransfer: [UInt8]?
    /// Proves the double-spent state and its owner.
    public let chain: [UInt8]
    public let beneficiaryAccount: Int64?
    public let amount: UInt64
    public let status: String
    public let createdAt: UInt64
}
