import Foundation
import WalletFlows

/// A sync's progress and partial failures in the person's language.
enum SyncText {
    /// What `step` does, for the progress line ("redeeming notes received offline…").
    static func step(_ step: SyncStep) -> String {
        switch step {
        case .restoredNotes:
            localized(
                "sync.step.restoredNotes", "exchanging notes restored from a backup; checking notes held after a lost refresh…")
        case .announce: localized("sync.step.announce", "announcing payments still waiting for a receipt…")
        case .settlePending:
            localized("sync.step.settlePending", "asking the issuer about payments whose receipt never came back…")
        case .redeem: localized("sync.step.redeem", "redeeming notes received offline…")
        case .refresh: localized("sync.step.refresh", "refreshing notes near expiry or the hop limit…")
        case .fraudAndRecharge: localized("sync.step.fraudAndRecharge", "reporting double spends caught offline; auto-recharge…")
        case .done: localized("sync.step.done", "done")
        }
    }

    /// One failed step: "step 4 of 7 (redeeming notes received offline): what the issuer said".
    static func failure(_ failure: SyncStepFailure) -> String {
        localized(
            "sync.stepFailed", "step %1$@ of %2$@ (%3$@): %4$@", String(failure.step.rawValue), String(SyncStep.allCases.count),
            step(failure.step).trimmingCharacters(in: CharacterSet(charactersIn: "…")), ErrorText.issuer(failure.error))
    }

    /// A sync whose other steps ran while some failed: how many, that syncing again is safe,
    /// then one line per failed step.
    static func incomplete(_ incomplete: SyncIncomplete) -> String {
        let count = localized("sync.stepCount", count: incomplete.failures.count, one: "%lld step", other: "%lld steps")
        let steps = incomplete.failures.map(failure).joined(separator: "\n")  // not shown: a line break between whole lines
        return localized(
            "sync.incomplete", "The sync finished, but %1$@ failed. The other steps ran; sync again once this is fixed.\n%2$@",
            count, steps)
    }
}
