import Foundation
import WalletCore

/// The words a history row and its detail draw besides the amount: what kind of line it is,
/// its status, and one sentence for VoiceOver (so the row reads as one element).
extension HistoryModel.Row {
    /// "Sent", "Received", "Bought", "Funded", "Refunded", "Charged".
    public var directionText: String {
        switch direction {
        case .sent: "Sent"
        case .received: "Received"
        case .purchased: "Bought"
        case .funded: "Funded"
        case .refunded: "Refunded"
        case .charged: "Charged"
        }
    }

    /// The status badge: "Pending", "Completed", "Failed".
    public var statusText: String {
        switch status {
        case .pending: "Pending"
        case .completed: "Completed"
        case .failed: "Failed"
        }
    }

    /// The counterparty line: the name (another party wrote it: control characters made
    /// visible), or what the line is when there is none ("Issuer").
    public var counterpartyText: String {
        if !counterparty.isEmpty { return DisplayText.visible(counterparty) }
        return [.purchased, .funded, .refunded, .charged].contains(direction) ? "Issuer" : "Unknown"
    }

    /// The row as VoiceOver reads it: "Sent to Bob, minus 25.00 EUR, Completed, by QR, 5 min ago."
    /// (plus the error on a failed line).
    public var accessibilitySummary: String {
        let party = isIncoming ? "from" : "to"
        let sign = isIncoming ? "plus" : "minus"
        let money = amountText.drop(while: { $0 == "+" || $0 == "−" })
        var text = "\(directionText) \(party) \(counterpartyText), \(sign) \(money), \(statusText), by \(method), \(relativeTime)."
        if let error { text += " \(error)" }
        return text
    }
}

extension HistoryModel.Detail {
    /// "1 transfer since issue" / "3 transfers since issue"; nil without notes.
    public var chainText: String? {
        chainLength.map { $0 == 1 ? "1 transfer since issue" : "\($0) transfers since issue" }
    }
}
