import CrashPoints
import Foundation
import OfflineNotes
import WalletAPI
import WalletCore

extension IssuerClient {
    /// Notes the issuer sent as base64url chains.
    static func chains(_ texts: [String]) throws -> [Chain] {
        try texts.map { text -> Chain in
            guard let bytes = Base64URL.decode(text) else {
                throw IssuerClientError(code: "bad_note", "The server sent a malformed note.")
            }
            return try Chain(decoding: bytes)
        }
    }

    /// What `exchangeRestoredNotes` did.
    public struct RestoreExchange: Sendable, Equatable {
        /// Restored states redeemed and re-issued to this wallet's key.
        public var exchanged = 0
        /// Value of the fresh notes received.
        public var value: UInt64 = 0
        /// Restored states the old device had already spent: retired without a fraud case.
        public var alreadySpent = 0
        /// Restored states whose value is already elsewhere: exchanged by another restore of
        /// the same backup, or redeemed into the account before. Retired; nothing is bought.
        public var alreadyExchanged = 0
        /// Restored states past their redemption grace.
        public var expired = 0
        /// Restored states the issuer refused for another reason (code: reason).
        public var refused: [String] = []

        /// Nothing exchanged yet.
        public init() {}
    }

    /// Exchanges every state restored from a backup for fresh notes owned by this wallet's key
    /// (docs/protocol.md §5.2 rule 5), 64 at a time. Restored states are never spent offline:
    /// the old device may have spent them after the backup. Safe to retry: the issuer answers
    /// a repeated exchange with the same notes.
    public func exchangeRestoredNotes(of wallet: Wallet) async throws -> RestoreExchange {
        let restored = try wallet.restoredStates()
        var report = RestoreExchange()
        for start in stride(from: 0, to: restored.count, by: 64) {
            let batch = Array(restored[start..<min(start + 64, restored.count)])
            let out = try await call {
                try await client.refreshNotes(
                    body: .json(
                        .init(
                            walletKey: Base64URL.encode(wallet.publicKey.bytes),
                            chains: batch.map { Base64URL.encode($0.chain.encoded) },
                            restore: true)))
            }
            switch out {
            case .ok(let ok):
                let body = try ok.body.json
                let fresh = try Self.chains(body.chains)
                var outcomes: [StateRef: RestoreOutcome] = [:]
                for (state, result) in zip(batch, body.results) {
                    switch (result.status, result.code) {
                    case (.credited, _), (.alreadyCredited, _), (.conflict, _):
                        outcomes[state.ref] = .exchanged
                        report.exchanged += 1
                    case (.invalid, "already_spent"):
                        outcomes[state.ref] = .alreadySpent
                        report.alreadySpent += 1
                    case (.invalid, "already_exchanged"), (.invalid, "already_redeemed"):
                        outcomes[state.ref] = .alreadySpent
                        report.alreadyExchanged += 1
                    case (.invalid, "expired"):
                        outcomes[state.ref] = .expired
                        report.expired += 1
                    case (.invalid, let code):
                        report.refused.append("\(code ?? "invalid"): \(result.reason ?? "")")
                    }
                }
                CrashPoints.reach(.walletSyncRestoreAnswered)
                report.value += try wallet.applyRestoreExchange(outcomes, fresh: fresh)
                CrashPoints.reach(.walletSyncRestoreApplied)
            case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            }
        }
        return report
    }

    /// What `settlePendingPayments` found.
    public struct PendingSettlement: Sendable, Equatable {
        /// Payments the issuer saw the payee redeem or spend: complete without a receipt.
        public var confirmed = 0
        /// Payments whose notes expired unredeemed: refunded by the issuer, no longer pending.
        public var expired = 0
        /// Payments still waiting (the payee has not redeemed yet).
        public var stillPending = 0

        /// Nothing settled yet.
        public init() {}
    }

    /// Ends payments whose receipt never came back (docs/protocol.md §5.2 rule 3): asks the
    /// issuer about the states each paid to its payee. Redeemed or spent onward means the payee
    /// has the money; past the notes' redemption deadline and still unredeemed means the issuer
    /// refunded it. Call after `announcePending`.
    public func settlePendingPayments(of wallet: Wallet, now: Timestamp) async throws -> PendingSettlement {
        var report = PendingSettlement()
        let pending = try wallet.pendingPayments().map { ($0, try wallet.paidStates(of: $0)) }
        // One question for every paid state of every pending payment (512 per request).
        let statuses = try await stateStatuses(pending.flatMap(\.1))
        if !pending.isEmpty { CrashPoints.reach(.walletSyncSettleAnswered) }
        for (payment, paid) in pending {
            let answers = paid.compactMap { statuses[$0] }
            if answers.contains(where: { $0 == .redeemed || $0 == .spent }) {
                // The payee holds the whole bundle: one chain redeemed or spent proves it.
                try wallet.resolvePending(payment.request.nonce, .confirmedByIssuer)
                report.confirmed += 1
            } else if now >= (try wallet.redemptionDeadline(of: payment)) {
                try wallet.resolvePending(payment.request.nonce, .expiredUnredeemed)
                report.expired += 1
            } else {
                report.stillPending += 1
            }
        }
        return report
    }

    /// What the issuer knows of each state, asked 512 at a time (the API's limit).
    func stateStatuses(
        _ refs: [StateRef]
    ) async throws -> [StateRef: Components.Schemas.StateAnswer.StatesPayloadPayload.StatusPayload] {
        var out: [StateRef: Components.Schemas.StateAnswer.StatesPayloadPayload.StatusPayload] = [:]
        for start in stride(from: 0, to: refs.count, by: 512) {
            let batch = Array(refs[start..<min(start + 512, refs.count)])
            switch try await call({
                try await client.checkStates(body: .json(.init(states: batch.map { Base64URL.encode($0.bytes) })))
            }) {
            case .ok(let ok):
                for (ref, answer) in zip(batch, try ok.body.json.states) { out[ref] = answer.status }
            case .default(let status, let problem): throw IssuerClientError(status, try? problem.body.applicationProblemJson)
            }
        }
        return out
    }
}
