import CrashPoints
import Crypto
import Foundation
import OfflineNotes
import SQLStore

/// One chain to redeem, verified in full.
struct RedemptionItem: Sendable {
    let account: Int64
    let state: VerifiedState
    let entry: [UInt8]
}

extension RedemptionItem {
    /// Every state the redemption writes: each spend of the chain, then the held state. Two
    /// items of a batch that share one are written one by one (or, on PostgreSQL, the batch is
    /// not clean).
    var states: [[UInt8]] { state.spends.map(\.state.bytes) + [state.ref.bytes] }
}

/// One chain as the group commit queues it: verified before the transaction, except for the
/// note's issuer signature when `verified` is nil. The batch settles that one against the
/// note's record in `issued_note.note` (the issuer's own signature is not verified bySignature:
/// `AwaitingIssuerRecord`); a chain whose note differs from its record, or has none, gets its
/// signature verified after the transaction, outside it, and is written by another.
struct PendingRedemption: Sendable {
    let account: Int64
    let chain: AwaitingIssuerRecord
    /// Set once the issuer signature was verified.
    var verified: VerifiedState?
    let entry: [UInt8]
}

/// The outcome for one chain of a redemption batch.
public enum RedeemResult: Sendable, Equatable {
    /// The held state was credited to the account.
    case credited(amount: UInt64)
    /// This account had already redeemed this state: nothing changed (retries are safe).
    case alreadyCredited(amount: UInt64)
    /// A state in the chain was spent differently before: a fraud case was opened. Under the
    /// default policy the honest later receiver is still credited (from the cheater).
    case conflict(fraudCase: Int64, credited: UInt64)
    /// The chain was refused; nothing changed.
    case invalid(code: String, reason: String)

    public var creditedAmount: UInt64 {
        switch self {
        case .credited(let a): a
        case .conflict(_, let c): c
        case .alreadyCredited, .invalid: 0
        }
    }
}

/// What the issuer knows of a note state (restored wallets, payments without a receipt).
public enum StateStatus: String, Sendable, Codable {
    /// An issued note's own state, not spent yet.
    case unspent
    /// Spent by a transfer the issuer has seen.
    case spent
    case redeemed
    /// An issued note's own state, refunded after expiry without being spent or redeemed.
    case refunded
    /// Not seen by the issuer: a state created offline and not yet redeemed or spent onward.
    case unknown
}

extension Issuer {
    /// Redeems chains into the account: one result per chain, in order. Chains are verified
    /// concurrently outside any transaction, then written by group commit.
    public func redeem(account: Int64, chains: [[UInt8]]) async throws(IssuerError) -> [RedeemResult] {
        guard (1...64).contains(chains.count) else { throw .invalidField(field: "chains", reason: "1 to 64 chains") }
        do {
            // One chain (what a wallet sends after one payment): no child task to verify it beside others.
            if chains.count == 1 { return [try await redeemOne(account: account, bytes: chains[0])] }
            return try await withThrowingTaskGroup(of: (Int, RedeemResult).self) { group in
                for (i, bytes) in chains.enumerated() {
                    group.addTask { (i, try await self.redeemOne(account: account, bytes: bytes)) }
                }
                var results = [RedeemResult?](repeating: nil, count: chains.count)
                for try await (i, result) in group { results[i] = result }
                return results.map { $0 ?? .invalid(code: "internal", reason: "missing result") }
            }
        } catch let error as IssuerError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    func redeemOne(account: Int64, bytes: [UInt8]) async throws -> RedeemResult {
        let now = UInt64(self.now)
        let chain: AwaitingIssuerRecord
        do {
            chain = try verifier.verifyChainAwaitingIssuerRecord(bytes, now: now, checkExpiry: false)
        } catch {
            return .invalid(code: error.code, reason: error.description)
        }
        // Written so that it cannot overflow: the note's signature is not verified yet, so its
        // expiry can be anything.
        guard now < chain.expiresAt || now - chain.expiresAt < config.redemptionGrace else {
            // Verification comes before the issuer's own rules (§5): a forged note is refused as forged.
            do { _ = try chain.confirmBySignature() } catch { return .invalid(code: error.code, reason: error.description) }
            return .invalid(code: "expired", reason: "the note expired and its redemption grace period is over")
        }
        let item = PendingRedemption(account: account, chain: chain, entry: random(16))
        return try await redemptions.submit(item) { batch, slot in
            let first = try await self.commitBatch(batch, slot: slot)
            var results: [Result<RedeemResult, any Error>] = first.map {
                .success($0 ?? .invalid(code: "internal", reason: "not processed"))
            }
            // Notes the record did not settle: their signatures are verified here, outside any
            // transaction (a flood of forged notes must not hold one open), and those that pass
            // are written by a second one. Honest chains get here only if their note's bytes
            // differ from the record (another valid encoding of the same signature).
            var bySignature: [(index: Int, item: PendingRedemption)] = []
            for i in first.indices where first[i] == nil {
                do throws(VerificationError) {
                    var item = batch[i]
                    item.verified = try item.chain.confirmBySignature()
                    bySignature.append((i, item))
                } catch {
                    results[i] = .success(.invalid(code: error.code, reason: error.description))
                }
            }
            guard !bySignature.isEmpty else { return results }
            // The first transaction's chains are committed: a failure now is only these chains'.
            do {
                let written = try await self.commitBatch(bySignature.map(\.item), slot: slot)
                for (n, i) in bySignature.map(\.index).enumerated() {
                    results[i] = .success(written[n] ?? .invalid(code: "internal", reason: "not processed"))
                }
            } catch {
                for i in bySignature.map(\.index) { results[i] = .failure(error) }
            }
            return results
        }
    }
}
