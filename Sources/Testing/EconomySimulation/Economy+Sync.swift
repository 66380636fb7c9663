import Foundation
import IssuerCore
import OfflineNotes
import WalletCore

// The sync a wallet runs when it comes online, against the in-process issuer. It takes the
// steps of `WalletSession.sync` (WalletFlows) in the same order with the same engine calls —
// exchange restored notes, check held ones, announce payments without a receipt, settle them,
// redeem what was received, refresh, report fraud proofs, recharge — but calls `Issuer`
// directly instead of through `IssuerClient`'s HTTP: the money rules live in the engine and
// the issuer, and the HTTP layer is checked on its own (API fuzzing, soak). A loopback server
// per sync would cost most of the run's time.
extension Economy {
    func sync(_ m: Member, recharge need: UInt64 = 0) async throws {
        count("syncs")
        let w = try wallet(m)
        let now = clock.now
        m.lastSync = now

        // 1. Restored states: exchanged online for notes of the new key (§5.2 rule 5).
        let restored = try w.restoredStates()
        for batch in restored.chunked(64) {
            do {
                let out = try await issuer.refresh(
                    account: m.account, walletKey: w.publicKey, chains: batch.map(\.chain.encoded), restore: true)
                var outcomes: [StateRef: RestoreOutcome] = [:]
                for (state, result) in zip(batch, out.results) {
                    switch result {
                    case .credited, .alreadyCredited, .conflict: outcomes[state.ref] = .exchanged
                    case .invalid(let code, _) where code == "already_spent": outcomes[state.ref] = .alreadySpent
                    case .invalid(let code, _) where code == "already_exchanged" || code == "already_redeemed":
                        outcomes[state.ref] = .alreadySpent
                        count("restore-retired-\(code)")
                    case .invalid(let code, _) where code == "expired": outcomes[state.ref] = .expired
                    case .invalid(let code, _): count("restore-refused-\(code)")
                    }
                }
                count("restored-states-exchanged", outcomes.count)
                try w.applyRestoreExchange(outcomes, fresh: out.notes)
            } catch let error as IssuerError {
                count("restore-exchange-failed-\(error.code)")
            }
        }

        // 2. States held back after a refresh the issuer did not finish: released if it never
        //    saw them spent, retired otherwise.
        try await checkHeld(w)

        // 3. Payments without a receipt: announced, then settled from the issuer's records.
        let pending = try w.pendingPayments()
        for payment in pending {
            for chain in try PaymentBundle(decoding: payment.bundle).chains {
                if case .conflict = try await issuer.announce(account: m.account, chain: chain.encoded) {
                    count("announce-found-fraud")
                }
            }
        }
        if !pending.isEmpty {
            let paid = try pending.map { ($0, try w.paidStates(of: $0)) }
            let statuses = try await issuer.stateStatus(paid.flatMap(\.1))
            for (payment, refs) in paid {
                if refs.contains(where: { statuses[$0] == .redeemed || statuses[$0] == .spent }) {
                    try w.resolvePending(payment.request.nonce, .confirmedByIssuer)
                    count("payments-confirmed-by-issuer")
                } else if now >= (try w.redemptionDeadline(of: payment)) {
                    try w.resolvePending(payment.request.nonce, .expiredUnredeemed)
                    count("payments-expired-unredeemed")
                }
            }
        }

        // 4. Redeem what was received offline.
        let received = try w.states(.received).filter { !$0.needsOnlineCheck }
        if m.neverRedeems {
            try w.markSettled(received.map(\.ref))  // sabotage: the wallet believes it was paid
        } else {
            for batch in received.chunked(64) {
                let results = try await issuer.redeem(account: m.account, chains: batch.map(\.chain.encoded))
                var settled: [StateRef] = []
                for (state, result) in zip(batch, results) {
                    switch result {
                    case .credited, .alreadyCredited:
                        settled.append(state.ref)
                    case .conflict(let fraudCase, let credited):
                        try w.recordFraudCase(fraudCase, for: state.ref)
                        count("redemptions-paid-from-cheater")
                        if credited > 0 {
                            settled.append(state.ref)
                        } else if !m.cheats {
                            violation(
                                "honest payee \(m.account) redeemed a double-spent state and was not credited (case \(fraudCase))"
                            )
                        }
                    case .invalid(let code, let reason):
                        count("redemptions-refused-\(code)")
                        if !m.cheats {
                            violation("honest payee \(m.account) had a received note refused at redemption: \(code): \(reason)")
                        }
                    }
                }
                count("states-redeemed", settled.count)
                try w.markSettled(settled)
            }
        }

        // 5. Refresh notes near expiry or the hop limit, and consolidate (held first, as
        //    WalletSync does).
        let due = try w.statesDueForRefresh(now: now, expiringWithin: config.redemptionGrace / 2)
        for batch in due.chunked(64) {
            try w.holdForOnlineCheck(batch.map(\.ref))
            do {
                let out = try await issuer.refresh(account: m.account, walletKey: w.publicKey, chains: batch.map(\.chain.encoded))
                let exchanged = zip(batch, out.results).filter {
                    if case .credited = $0.1 { return true }
                    if case .alreadyCredited = $0.1 { return true }
                    return false
                }.map(\.0.ref)
                let value = try w.exchange(exchanged, for: out.notes)
                count("notes-refreshed", exchanged.count)
                count("value-refreshed", Int(value))
            } catch let error as IssuerError {
                count("refresh-failed-\(error.code)")
            }
            try await checkHeld(w)
        }

        // 6. Fraud proofs caught offline go to the issuer once.
        let proofs = try w.fraudProofs()
        if proofs.count > m.reportedProofs {
            for proof in proofs[m.reportedProofs...] {
                _ = try await issuer.reportFraud(
                    account: m.account, chain: proof.chain.encoded, first: proof.first.encoded, second: proof.second.encoded)
                count("fraud-proofs-reported")
            }
            m.reportedProofs = proofs.count
        }

        // 7. Auto-recharge.
        try await recharge(m, target: max(20_000, need))
    }

    /// Held states (a refresh the issuer refused or did not finish): the issuer's state check
    /// decides, as `IssuerClient.checkRestoredNotes` does after its resend.
    func checkHeld(_ w: Wallet) async throws {
        let held = try w.states(.available).filter { $0.needsOnlineCheck && !$0.restored }
        guard !held.isEmpty else { return }
        let statuses = try await issuer.stateStatus(held.map(\.ref))
        var results: [StateRef: OnlineStateCheck] = [:]
        for state in held {
            guard let status = statuses[state.ref] else { continue }
            results[state.ref] = status == .unspent || status == .unknown ? .unspent : .spent
            count(status == .unspent || status == .unknown ? "held-states-released" : "held-states-retired-\(status.rawValue)")
        }
        try w.applyOnlineCheck(results)
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
