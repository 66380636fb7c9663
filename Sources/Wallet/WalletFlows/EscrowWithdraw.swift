import Foundation
import OfflineNotes
import WalletSync

/// A withdrawal to a blockchain address sent but not known to be taken: retried with the same
/// idempotency key, so the issuer debits it (and pays it out) at most once. Saved before the
/// request goes out, forgotten once the issuer answered it or refused it.
public struct PendingWithdrawal: Codable, Sendable, Equatable {
    public var key: String
    public var amount: UInt64
    /// The address as the person gave it (the issuer checks its checksum).
    public var to: String

    public init(key: String, amount: UInt64, to: String) {
        self.key = key
        self.amount = amount
        self.to = to
    }
}

/// What `WalletSession.withdraw` did.
public struct WithdrawalRequestResult: Sendable, Equatable {
    /// The withdrawal asked for (debited from the account, queued for payout).
    public var withdrawal: EscrowWithdrawal
    /// The same withdrawal had been sent before and its answer was lost (a crash, a cut
    /// network): this is that withdrawal, debited once — not a second one.
    public var resent: Bool
    /// An earlier, different withdrawal whose answer was lost, finished first with its own key.
    public var earlier: EscrowWithdrawal?

    public init(withdrawal: EscrowWithdrawal, resent: Bool, earlier: EscrowWithdrawal?) {
        self.withdrawal = withdrawal
        self.resent = resent
        self.earlier = earlier
    }
}

extension WalletSession {
    /// Withdraws `amount` from the settled balance to `address` on the blockchain. The address must have
    /// an address's form (`AddressFormat.check`; its checksum is the issuer's to verify), else
    /// nothing is sent.
    ///
    /// The idempotency key is saved BEFORE the request goes out (as a purchase's), so a crash or
    /// a lost answer followed by the same withdrawal again (same amount, same address) sends the
    /// same key and the issuer answers the withdrawal it already made: debited once. An earlier
    /// *different* withdrawal still remembered is finished first with its own key (it is what
    /// the person asked for then; the issuer may already have made it).
    public func withdraw(amount: UInt64, to address: String) async throws -> WithdrawalRequestResult {
        let address = try AddressFormat.check(address)
        var earlier: EscrowWithdrawal?
        if let pending = try flowState.loadFlowState().pendingWithdrawal {
            if pending.amount == amount && pending.to == address {
                return WithdrawalRequestResult(withdrawal: try await send(pending), resent: true, earlier: nil)
            }
            earlier = try await finish(pending)
        }
        let pending = PendingWithdrawal(key: UUID().uuidString, amount: amount, to: address)
        try flowState.updateFlowState { $0.pendingWithdrawal = pending }
        return WithdrawalRequestResult(withdrawal: try await send(pending), resent: false, earlier: earlier)
    }

    /// Finishes a withdrawal left unfinished by an earlier run, if any (the list of withdrawals
    /// is complete only after it). Returns it; nil when there was none or the issuer refused it
    /// (then nothing was debited).
    @discardableResult
    public func finishPendingWithdrawal() async throws -> EscrowWithdrawal? {
        guard let pending = try flowState.loadFlowState().pendingWithdrawal else { return nil }
        return try await finish(pending)
    }

    /// `send`, except that a refusal is an answer too: it was never debited, nothing to report.
    private func finish(_ pending: PendingWithdrawal) async throws -> EscrowWithdrawal? {
        do { return try await send(pending) } catch let error as IssuerClientError where Self.isRefusal(error) { return nil }
    }

    /// Sends one remembered withdrawal. It is forgotten once the issuer answered or refused it
    /// (4xx other than 429: nothing was debited); after a transport failure, a 429 or a 5xx the
    /// outcome is unknown, so it stays and the next call retries it with the same key.
    private func send(_ pending: PendingWithdrawal) async throws -> EscrowWithdrawal {
        do {
            let withdrawal = try await client.withdraw(amount: pending.amount, to: pending.to, idempotencyKey: pending.key)
            try forget(pending)
            return withdrawal
        } catch let error as IssuerClientError where Self.isRefusal(error) {
            try forget(pending)
            throw error
        }
    }

    private static func isRefusal(_ error: IssuerClientError) -> Bool {
        (400..<500).contains(error.status) && error.status != 429
    }

    private func forget(_ pending: PendingWithdrawal) throws {
        try flowState.updateFlowState { if $0.pendingWithdrawal == pending { $0.pendingWithdrawal = nil } }
    }
}
