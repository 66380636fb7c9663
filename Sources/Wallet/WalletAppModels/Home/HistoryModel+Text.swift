import Foundation
import WalletCore

/// The words a history row and its detail draw besides the amount: what kind of line it is,
/// its status, and one sentence for VoiceOver (so the row reads as one element).
extension HistoryModel.Row {
    /// "Sent", "Received", "Bought", "Funded", "Refunded", "Charged".
    public var directionText: String {
        switch direction {
        case .sent: localized("history.direction.sent", "Sent")
        case .received: localized("history.direction.received", "Received")
        case .purchased: localized("history.direction.bought", "Bought")
        case .funded: localized("history.direction.funded", "Funded")
        case .refunded: localized("history.direction.refunded", "Refunded")
        case .charged: localized("history.direction.charged", "Charged")
        }
    }

    /// The status badge: "Pending", "Completed", "Failed".
    public var statusText: String {
        switch status {
        case .pending: localized("history.status.pending", "Pending")
        case .completed: localized("history.status.completed", "Completed")
        case .failed: localized("history.status.failed", "Failed")
        }
    }

    /// The counterparty line: the name (another party wrote it: control characters made
    /// visible), or what the line is when there is none ("Issuer").
    public var counterpartyText: String {
        if !counterparty.isEmpty { return DisplayText.visible(counterparty) }
        return [.purchased, .funded, .refunded, .charged].contains(direction)
            ? localized("history.party.issuer", "Issuer") : localized("history.party.unknown", "Unknown")
    }

    /// The row as VoiceOver reads it: "Sent to Bob, minus 25.00 EUR, Completed, by QR, 5 min ago."
    /// (plus the error on a failed line).
    public var accessibilitySummary: String {
        let money = String(amountText.drop(while: { $0 == "+" || $0 == "−" }))
        let summary =
            isIncoming
            ? localized(
                "history.summary.incoming", "%1$@ from %2$@, plus %3$@, %4$@, by %5$@, %6$@.", directionText, counterpartyText,
                money,
                statusText, method, relativeTime)
            : localized(
                "history.summary.outgoing", "%1$@ to %2$@, minus %3$@, %4$@, by %5$@, %6$@.", directionText, counterpartyText,
                money,
                statusText, method, relativeTime)
        guard let error else { return summary }
        return localized("history.summary.withError", "%1$@ %2$@", summary, error)
    }
}

extension HistoryModel.Detail {
    /// "1 transfer since issue" / "3 transfers since issue"; nil without notes.
    public var chainText: String? {
        chainLength.map {
            localized(
                "history.transfersSinceIssue", count: $0, one: "%lld transfer since issue", other: "%lld transfers since issue")
        }
    }
}
