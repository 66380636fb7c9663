import Foundation
import GRDB
import OfflineNotes

/// How a payment without a receipt ended, as learned from the issuer (docs/protocol.md §5.2 rule 3).
public enum PendingResolution: String, Sendable, Equatable, Codable {
    /// The issuer saw the payee redeem or spend what was paid: the payee has the money.
    case confirmedByIssuer = "issuer"
    /// The notes expired before the payee redeemed them; the issuer refunded the value to the
    /// last holder it knew (the payee's account, or the payer's if the payee has none).
    case expiredUnredeemed = "expired"
}

/// What the issuer answered for one restored state in a restore exchange.
public enum RestoreOutcome: Sendable, Equatable {
    /// Redeemed into the account; its value came back as fresh notes.
    case exchanged
    /// The old device had already spent it: retired, nothing to exchange.
    case alreadySpent
    /// Expired past its grace period: the issuer refunds it.
    case expired
}

extension Wallet {
    /// Value the backup restored that `sync` has not exchanged yet.
    public static let restoredMark: Int64 = 2

    /// The states a payment paid to the payee (the held state of each chain of its bundle):
    /// asking the issuer about these tells whether the payee redeemed or spent them.
    public func paidStates(of payment: OutgoingPayment) throws(WalletError) -> [StateRef] {
        do {
            return try PaymentBundle(decoding: payment.bundle).chains.map(\.heldRef)
        } catch {
            throw .corruptFile("stored payment bundle: \(error)")
        }
    }

    /// The earliest time at which every note of `payment` is past expiry and its redemption
    /// grace: if the payee has not redeemed by then, the issuer refunds instead.
    public func redemptionDeadline(of payment: OutgoingPayment) throws(WalletError) -> Timestamp {
        let grace = try limits().redemptionGrace
        do {
            let expiries = try PaymentBundle(decoding: payment.bundle).chains.map(\.note.expiresAt)
            return (expiries.max() ?? 0) &+ grace
        } catch {
            throw .corruptFile("stored payment bundle: \(error)")
        }
    }

    /// Ends a pending payment from what the issuer said: it no longer counts as reserved, its
    /// inputs are spent, and its history line says how it ended. A payment already completed
    /// (by receipt or earlier) is left as it is.
    public func resolvePending(_ nonce: Nonce, _ resolution: PendingResolution) throws(WalletError) {
        let now = env.now()
        try write { db in
            guard let payment = try outgoing(db, nonce: nonce), payment.status == .signed else { return }
            let (status, error): (HistoryEntry.Status, String?) =
                switch resolution {
                case .confirmedByIssuer: (.completed, nil)
                case .expiredUnredeemed:
                    (
                        .failed,
                        "The payee never redeemed it before the notes expired; the issuer refunded the value to your account if the payee took another payment for the request or has no account, else to the payee's."
                    )
                }
            try complete(db, payment, receipt: nil, resolution: resolution, history: status, error: error, now: now)
        }
    }

    /// How a completed payment ended without a receipt, if it did.
    public func resolution(of nonce: Nonce) throws(WalletError) -> PendingResolution? {
        try read { db in try outgoing(db, nonce: nonce).flatMap { try resolution(db, $0.id) } }
    }

    /// States restored from a backup that still wait for their online exchange.
    public func restoredStates() throws(WalletError) -> [StoredState] {
        try states().filter { $0.restored && ($0.status == .available || $0.status == .received) }
    }

    /// Applies a restore exchange in one transaction: each restored state is retired as the
    /// issuer answered, and the fresh notes it issued to this wallet's key become spendable.
    /// Returns the value of the fresh notes added.
    @discardableResult
    public func applyRestoreExchange(_ outcomes: [StateRef: RestoreOutcome], fresh chains: [Chain]) throws(WalletError) -> UInt64
    {
        let now = env.now()
        return try write { db in
            let verifier = try verifier(db)
            for (ref, outcome) in outcomes {
                let status =
                    switch outcome {
                    case .exchanged: "settled"
                    case .alreadySpent: "spent"
                    case .expired: "expired"
                    }
                try db.execute(
                    sql: """
                        UPDATE note_state SET status = ?, needs_online_check = 0, updated_at = ?
                        WHERE ref = ? AND needs_online_check = ? AND status IN ('available','received')
                        """,
                    arguments: [status, sqlTime(now), ref.bytes.data, Self.restoredMark])
            }
            return try insertFresh(db, chains, verifier: verifier, now: now)
        }
    }

    /// The key the restored backup belonged to, if this wallet was restored from one that carried it.
    public func restoredFromKey() throws(WalletError) -> PublicKeyBytes? {
        try read { db in try Self.setting(db, "restored_from_key").map(PublicKeyBytes.init(uncheckedBytes:)) }
    }
}
