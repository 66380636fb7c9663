import Foundation
import OfflineNotes
import WalletCore
import WalletSync

/// The steps of a sync, in the order they run.
public enum SyncStep: Int, CaseIterable, Sendable, Equatable {
    /// Exchange notes restored from a backup; check notes held after a lost refresh.
    case restoredNotes = 1
    /// Announce payments still waiting for a receipt (a double spend is caught even if the payee never syncs).
    case announce
    /// Ask the issuer about payments whose receipt never came back.
    case settlePending
    /// Redeem notes received offline; import the account's history (online transfers, refunds).
    case redeem
    /// Refresh notes near expiry or the hop limit.
    case refresh
    /// Report double spends caught offline; auto-recharge.
    case fraudAndRecharge
    /// Finished.
    case done

    /// What the step does, for progress lines.
    public var label: String {
        switch self {
        case .restoredNotes: "exchanging notes restored from a backup; checking notes held after a lost refresh…"
        case .announce: "announcing payments still waiting for a receipt…"
        case .settlePending: "asking the issuer about payments whose receipt never came back…"
        case .redeem: "redeeming notes received offline…"
        case .refresh: "refreshing notes near expiry or the hop limit…"
        case .fraudAndRecharge: "reporting double spends caught offline; auto-recharge…"
        case .done: "done"
        }
    }
}

/// One progress report: step k of n, reported when the step starts.
public struct SyncProgress: Sendable, Equatable {
    public var step: SyncStep
    /// 1-based.
    public var index: Int { step.rawValue }
    public var count: Int { SyncStep.allCases.count }
    public var label: String { step.label }
}

/// Everything one sync did and what the wallet and the account look like after it.
public struct SyncReport: Sendable {
    /// Restored notes exchanged, already spent, expired or refused.
    public var restored: IssuerClient.RestoreExchange
    /// Notes held after an interrupted refresh that were checked, and how many the issuer had taken.
    public var heldChecked: Int
    public var heldTaken: Int
    /// Unconfirmed transfers announced.
    public var announced: Int
    /// Payments without a receipt: confirmed, expired (refunded), still pending.
    public var settlement: IssuerClient.PendingSettlement
    /// Notes redeemed, value credited, refusals, fraud cases opened.
    public var redemption: IssuerClient.Redemption
    /// Account journal entries imported into history.
    public var history: AccountHistoryImport
    /// Value of own notes refreshed.
    public var refreshed: UInt64
    /// Value bought by auto-recharge (0 when nothing was due or it was skipped).
    public var recharged: UInt64
    /// Things that did not stop the sync but the user should see (e.g. an unaffordable auto-recharge).
    public var warnings: [String]
    /// Every fraud case the issuer named during this sync (redeemed, announced, reported), sorted.
    public var fraudCases: [Int64]
    /// The value at stake in each of `fraudCases`, from the wallet's own records of the notes
    /// involved (the redeemed state, the announced payment, the proof's chain); the largest
    /// when several name one case. A case missing here has an unknown value.
    public var fraudAmounts: [Int64: UInt64] = [:]
    /// Double-spend proofs the wallet holds.
    public var fraudProofs: [FraudProof]
    /// The wallet's balances after the sync.
    public var balance: Balance
    /// The account after the sync (settled balance, frozen).
    public var account: AccountSummary
    /// When the sync ran (saved as the last sync).
    public var syncedAt: Timestamp
}

/// A step of a sync that the issuer refused or could not answer while the other steps ran.
public struct SyncStepFailure: Sendable {
    /// The step that failed (it is safe to run again: the next sync does).
    public let step: SyncStep
    /// The issuer's answer.
    public let error: IssuerClientError

    /// "step 1/7 (exchanging …): what the issuer said".
    public var description: String {
        "step \(step.rawValue)/\(SyncStep.allCases.count) (\(step.label.trimmingCharacters(in: CharacterSet(charactersIn: "…")))): \(error.description)"
    }
}

/// A sync that ran every step but some of them failed: what the others did is in `report`.
public struct SyncIncomplete: Error, CustomStringConvertible {
    /// What the sync did, steps that failed counted as having done nothing.
    public let report: SyncReport
    /// The steps that failed, in order; never empty.
    public let failures: [SyncStepFailure]

    public var description: String {
        let steps = failures.map(\.description).joined(separator: "; ")
        return "The sync finished, but \(failures.count == 1 ? "one step" : "\(failures.count) steps") failed: \(steps). "
            + "The other steps ran; sync again once this is fixed."
    }
}

extension WalletSession {
    /// The whole sync, in order: exchange restored notes and check held ones; announce pending
    /// payments; settle payments without a receipt; redeem received notes and import the
    /// account's history; refresh old notes; report fraud proofs and auto-recharge. `progress`
    /// is called as each step starts (then once with `.done`). The sync time is saved as
    /// `FlowState.lastSync`.
    ///
    /// One failing step never blocks the others: a step the issuer refuses or cannot answer
    /// (an HTTP error other than 401) counts as having done nothing, the remaining steps run,
    /// and `SyncIncomplete` is thrown at the end with the report and the failures. Each step is
    /// safe to run again. Losing the issuer (unreachable), a rejected login and a local
    /// storage error stop the sync where they happen and are thrown as they are: every later
    /// step would meet them too. An auto-recharge the issuer refuses is a warning in the report.
    public func sync(
        refreshWithin seconds: UInt64, now: Timestamp = Timestamp(Date().timeIntervalSince1970),
        progress: @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> SyncReport {
        var failures: [SyncStepFailure] = []
        func attempt<T>(_ step: SyncStep, otherwise fallback: T, _ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch let error as IssuerClientError where !error.isUnreachable && error.status != 401 {
                failures.append(SyncStepFailure(step: step, error: error))
                return fallback
            }
        }
        progress(SyncProgress(step: .restoredNotes))
        let restored = try await attempt(.restoredNotes, otherwise: IssuerClient.RestoreExchange()) {
            try await client.exchangeRestoredNotes(of: wallet)
        }
        let checked = try await attempt(.restoredNotes, otherwise: (checked: 0, spent: 0)) {
            try await client.checkRestoredNotes(of: wallet)
        }
        progress(SyncProgress(step: .announce))
        let announced = try await attempt(.announce, otherwise: (announced: 0, fraudCases: [], fraudAmounts: [:])) {
            try await client.announcePending(of: wallet)
        }
        progress(SyncProgress(step: .settlePending))
        let settled = try await attempt(.settlePending, otherwise: IssuerClient.PendingSettlement()) {
            try await client.settlePendingPayments(of: wallet, now: now)
        }
        progress(SyncProgress(step: .redeem))
        let redemption = try await attempt(.redeem, otherwise: IssuerClient.Redemption()) {
            try await client.redeem(from: wallet)
        }
        let history = try await attempt(.redeem, otherwise: AccountHistoryImport()) {
            try await client.importAccountHistory(into: wallet)
        }
        progress(SyncProgress(step: .refresh))
        let refreshed = try await attempt(.refresh, otherwise: 0) {
            try await client.refreshNotes(of: wallet, expiringWithin: seconds, now: now)
        }
        progress(SyncProgress(step: .fraudAndRecharge))
        let reported = try await attempt(.fraudAndRecharge, otherwise: []) { try await client.reportFraudProofs(of: wallet) }
        let recharge = try await attempt(.fraudAndRecharge, otherwise: Recharge.nothingDue) { try await applyAutoRecharge() }
        progress(SyncProgress(step: .done))
        try flowState.updateFlowState { $0.lastSync = now }
        let balance = try wallet.balance()
        let proofs = try wallet.fraudProofs()
        let account = try await client.account()
        var fraudAmounts = redemption.fraudAmounts
        for (fraudCase, amount) in announced.fraudAmounts.map({ ($0.key, $0.value) })
            + reported.map({ ($0.fraudCase, $0.amount) })
        {
            fraudAmounts[fraudCase] = max(fraudAmounts[fraudCase] ?? 0, amount)
        }
        let report = SyncReport(
            restored: restored, heldChecked: checked.checked, heldTaken: checked.spent, announced: announced.announced,
            settlement: settled, redemption: redemption, history: history, refreshed: refreshed, recharged: recharge.amount,
            warnings: recharge.warning.map { [$0] } ?? [],
            fraudCases: Array(Set(redemption.fraudCases + announced.fraudCases + reported.map(\.fraudCase))).sorted(),
            fraudAmounts: fraudAmounts, fraudProofs: proofs,
            balance: balance, account: account, syncedAt: now)
        guard failures.isEmpty else { throw SyncIncomplete(report: report, failures: failures) }
        return report
    }

    /// `sync` as a stream of progress events ending in the report (for UIs that iterate).
    public func syncEvents(
        refreshWithin seconds: UInt64, now: Timestamp = Timestamp(Date().timeIntervalSince1970)
    )
        -> AsyncThrowingStream<SyncEvent, any Error>
    {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let report = try await self.sync(refreshWithin: seconds, now: now) { continuation.yield(.progress($0)) }
                    continuation.yield(.finished(report))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// An event of `WalletSession.syncEvents`.
public enum SyncEvent: Sendable {
    case progress(SyncProgress)
    case finished(SyncReport)
}
