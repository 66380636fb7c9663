import Foundation
import GRDB
import OfflineNotes
import Synchronization

/// Keeping notes fresh: which spendable notes a sync exchanges (near expiry, near the hop
/// limit, travelled, or too many), holding them while the issuer checks them, and taking the
/// fresh notes of the same value in their place.
extension Wallet {
    /// Spendable notes the wallet keeps fresh beyond the one or two it pays from: more are
    /// exchanged at sync into one note of their total.
    public static let consolidateAbove = 2

    /// The spendable notes a sync exchanges for fresh ones of the same value, so that the next
    /// offline payments take few QR frames (a payment's size grows with its chains' hops and
    /// count):
    /// - notes expiring within `seconds` of `now`, or one hop short of the limit (they could
    ///   soon not be paid at all);
    /// - every note that has travelled (change, one hop or more): fresh notes make the
    ///   smallest payments;
    /// - when more than `consolidateAbove` fresh notes remain, all but the largest: the
    ///   issuer reissues one note of their total, and one chain pays what several would.
    ///
    /// The value held is unchanged (the issuer redeems and reissues the same total), so the
    /// holding limit and the risk budget are too.
    public func statesDueForRefresh(now: Timestamp, expiringWithin seconds: UInt64) throws(WalletError) -> [StoredState] {
        let limits = try limits()
        let spendable = try states(.available).filter { !$0.needsOnlineCheck }
        var due = spendable.filter { state in
            state.chain.note.expiresAt <= now + seconds || state.chain.transfers.count >= limits.maxHops - 1
                || !state.chain.transfers.isEmpty
        }
        let dueRefs = Set(due.map(\.ref))
        let fresh = spendable.filter { !dueRefs.contains($0.ref) }.sorted {
            $0.amount != $1.amount ? $0.amount > $1.amount : $0.ref < $1.ref
        }
        if fresh.count > Self.consolidateAbove { due += fresh.dropFirst() }
        return due
    }

    /// Takes notes out of offline spending before they are handed to the issuer (refresh): if
    /// the answer never comes (crash, lost link), they stay held until an online check says
    /// whether the issuer took them, so they can never be both refreshed and spent offline.
    public func holdForOnlineCheck(_ refs: [StateRef]) throws(WalletError) {
        let now = env.now()
        try write { db in try updateStates(db, refs, set: "needs_online_check = 1", where: "status = 'available'", now: now) }
    }

    /// Swaps notes the issuer took back (`refs`) for the fresh notes it issued in exchange, in
    /// one transaction: the old states are retired and the new ones become spendable.
    /// Returns the value of the fresh notes added.
    @discardableResult
    public func exchange(_ refs: [StateRef], for chains: [Chain]) throws(WalletError) -> UInt64 {
        let now = env.now()
        return try write { db in
            let verifier = try verifier(db)
            try updateStates(db, refs, set: "status = 'settled', needs_online_check = 0", where: "status = 'available'", now: now)
            return try insertFresh(db, chains, verifier: verifier, now: now)
        }
    }

    /// Verifies and stores notes the issuer issued to this wallet's key in exchange for notes
    /// handed back; returns the value added (notes already held add nothing).
    func insertFresh(_ db: Database, _ chains: [Chain], verifier: NoteVerifier, now: Timestamp) throws -> UInt64 {
        var added: UInt64 = 0
        for chain in chains {
            let state: VerifiedState
            do throws(VerificationError) { state = try verifier.verify(chain, now: now) } catch {
                throw WalletError.rejected(error)
            }
            guard state.owner == publicKey else { throw WalletError.notOwnedByWallet }
            try Self.recordSpends(db, state)
            // Fresh notes from the issuer are a purchase paid with the notes handed back.
            if try insertState(db, state, status: .available, origin: "purchased", now: now) { added += state.amount }
        }
        return added
    }
}
