import Foundation
import NearbySession
import Observation
import OfflineNotes
import QRPayload
import WalletCore
import WalletFlows

/// What the send screen shows from the form: the balance line, the checklist of what is
/// missing, the summary card and the methods that fit the recipient.
extension SendModel {
    /// What the chosen method spends from.
    public var available: UInt64 { method.isOffline ? offlineSpendable : settled }

    /// "Remaining" / "Insufficient balance" under the amount.
    public var balanceLine: AmountEntry.BalanceLine { amount.balanceLine(available: available) }

    /// The checklist, in the order the form is filled; empty when Send can be pressed.
    public var missing: [Requirement] {
        var missing: [Requirement] = []
        switch recipient {
        case nil: missing.append(.recipient)
        case .account(let account):
            if !Self.looksLikeEmail(account) { missing.append(.validAccount) }
            if method.isOffline { missing.append(.requestForOffline) }
        case .request(let request):
            if request.currency != currency { missing.append(.currency(requested: request.currency, held: currency)) }
            if request.expiresAt <= clock.now() { missing.append(.freshRequest) }
            if !method.isOffline { missing.append(.offlineForRequest) }
        }
        switch amount.missing(available: available) {
        case .amount(let e)?: missing.append(.amount(e))
        case .funds(let short)?: missing.append(.funds(shortBy: short, currency: currency))
        case nil: break
        }
        return missing
    }

    /// Whether Send is enabled.
    public var canSend: Bool { missing.isEmpty }

    /// The summary card once everything is in.
    public var summary: Summary? {
        guard missing.isEmpty, let recipient, let value = amount.minorUnits else { return nil }
        let name: String
        var keyID: String?
        switch recipient {
        case .request(let r):
            name = r.payeeTitle
            keyID = "\(r.payee.keyID)"
        case .account(let a): name = a
        }
        return Summary(
            recipientName: name, amount: value, currency: currency, method: method,
            description: note.trimmingCharacters(in: .whitespacesAndNewlines), remaining: available - value, payeeKeyID: keyID)
    }

    /// The Send button's label.
    public var sendButtonTitle: String { method.buttonTitle }

    /// The methods that fit the recipient (the segmented control greys out the others).
    public var allowedMethods: [SendMethod] {
        switch recipient {
        case .request?: [.qr, .bluetooth]
        case .account?: [.online]
        case nil: SendMethod.allCases
        }
    }

    /// One "@" with text on both sides and no spaces: the issuer checks the account exists;
    /// this only catches what is plainly not an email before the person presses Send.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasSuffix(".")
            && !text.contains(where: \.isWhitespace)
    }
}

extension PaymentRequest {
    /// Who asks, as the screens name them: the payee's name, or "Scanned request" when the
    /// request carries none.
    var payeeTitle: String { payeeNameShown ?? localized("send.scannedRequestTitle", "Scanned request") }
}
