import Foundation
import Observation
import OfflineNotes

/// The Send screen's state before anything is signed: recipient, amount, method, description,
/// the summary card and the checklist of what is still missing. Logic only; the payment itself
/// (signing, sending, waiting for the receipt) is the flow layer's, called by the next step.
///
/// The recipient is either a scanned payment request (paid offline, by QR or Bluetooth: it
/// carries the payee's key and the nonce the payment binds to) or a typed account email (paid
/// online from the settled balance). So the method and the recipient must agree, and what is
/// available depends on the method: offline spendable notes, or the settled balance.
@Observable
@MainActor
public final class SendModel: FocusableForm {
    /// The form's fields in focus order (APP-SCREENS: recipient → amount → description).
    public enum Field: CaseIterable, Hashable, Sendable {
        case recipient, amount, description
    }

    /// Who is paid.
    public enum Recipient: Equatable, Sendable {
        case request(PaymentRequest)
        case account(String)
    }

    /// One line of the checklist of what is still missing before Send is enabled.
    public enum Requirement: Equatable, Sendable, CustomStringConvertible {
        /// No request scanned and no account typed.
        case recipient
        /// The typed account is not an email address.
        case validAccount
        /// The amount is empty or not usable (the entry's error says why).
        case amount(AmountEntryError?)
        /// The amount is above what the method can spend.
        case funds(shortBy: UInt64, currency: Currency)
        /// An offline method needs a scanned request; a typed account is paid online.
        case requestForOffline
        /// A scanned request is paid offline (QR or Bluetooth), not online.
        case offlineForRequest
        /// The request asks for another currency than the wallet holds.
        case currency(requested: Currency, held: Currency)
        /// The request expired; ask the payee for a new one.
        case freshRequest

        public var description: String {
            switch self {
            case .recipient: "Scan the payee's request or enter their account email."
            case .validAccount: "Enter the recipient's account email, e.g. name@example.com."
            case .amount(let error): error?.description ?? "Enter an amount."
            case .funds(let short, let currency):
                "Insufficient balance: \(Amount.format(short, currency: currency)) \(currency) more is needed."
            case .requestForOffline: "Paying offline needs the payee's request: scan it, or choose Online."
            case .offlineForRequest: "A scanned request is paid offline: choose QR or Bluetooth."
            case .currency(let requested, let held): "The request is in \(requested) and this wallet holds \(held)."
            case .freshRequest: "The request has expired. Ask the payee to show a new one."
            }
        }
    }

    /// The confirmation card.
    public struct Summary: Equatable, Sendable {
        public let recipientName: String
        public let amount: UInt64
        public let currency: Currency
        public let method: SendMethod
        public let description: String
        /// What is left on the method's balance afterwards.
        public let remaining: UInt64

        public init(
            recipientName: String, amount: UInt64, currency: Currency, method: SendMethod, description: String,
            remaining: UInt64
        ) {
            self.recipientName = recipientName
            self.amount = amount
            self.currency = currency
            self.method = method
            self.description = description
            self.remaining = remaining
        }
    }

    public let currency: Currency
    public var focus = FormFocus<Field>(initial: .amount)
    public var amount: AmountEntry
    public var method: SendMethod { didSet { amount.maximum = available } }
    public var note: String = ""
    /// The balances the method spends from; update them as the wallet's snapshots arrive.
    public var offlineSpendable: UInt64 { didSet { amount.maximum = available } }
    public var settled: UInt64 { didSet { amount.maximum = available } }
    /// Set by `submit()` when everything is in: the confirmation to show before signing.
    public private(set) var confirmation: Summary?

    private var typedAccount = ""
    private var scannedRequest: PaymentRequest?
    private let clock: any AppClock

    public init(
        currency: Currency, offlineSpendable: UInt64, settled: UInt64, clock: any AppClock = SystemClock(),
        locale: Locale = .current, method: SendMethod = .bluetooth
    ) {
        self.currency = currency
        self.offlineSpendable = offlineSpendable
        self.settled = settled
        self.clock = clock
        self.method = method
        self.amount = AmountEntry(currency: currency, locale: locale)
        amount.maximum = available
    }

    // MARK: What the person does

    /// The sheet appeared: the amount field takes focus (and the decimal pad comes up).
    public func appear() { focus.appear() }

    /// The recipient field's text: the typed account, or the scanned payee's name. Typing
    /// replaces a scanned request (the person chose to pay someone else).
    public var recipientText: String {
        get { scannedRequest.map { $0.payeeName.isEmpty ? "Scanned request" : $0.payeeName } ?? typedAccount }
        set {
            if scannedRequest != nil { clearRequest() }
            typedAccount = newValue
            if !typedAccount.isEmpty, method.isOffline { method = .online }
        }
    }

    /// The recipient, if one is given.
    public var recipient: Recipient? {
        if let scannedRequest { return .request(scannedRequest) }
        let account = typedAccount.trimmingCharacters(in: .whitespaces)
        return account.isEmpty ? nil : .account(account)
    }

    /// A scan result (or the home screen's "Send payment"): Send prefilled with the request.
    /// A fixed amount fills and locks the amount; the method becomes an offline one
    /// (Bluetooth when the payee listens nearby, QR otherwise).
    public func useRequest(_ request: PaymentRequest) {
        scannedRequest = request
        typedAccount = ""
        if !request.isOpenAmount { amount.set(minorUnits: request.amount) }
        let nearby = request.hints.contains { $0.kind == .bluetooth || $0.kind == .tcp }
        if !method.isOffline || !nearby { method = nearby ? .bluetooth : .qr }
        // The amount is set already when fixed: on to the description; otherwise the amount.
        focus.focus(request.isOpenAmount ? .amount : .description)
    }

    /// Removes the scanned request (its fixed amount is unlocked, the text is kept).
    public func clearRequest() { scannedRequest = nil }

    /// Whether the amount is the request's and cannot be edited.
    public var isAmountLocked: Bool { scannedRequest.map { !$0.isOpenAmount } ?? false }

    /// The amount field's text; ignored while the amount is the request's.
    public var amountText: String {
        get { amount.text }
        set { if !isAmountLocked { amount.text = newValue } }
    }

    /// A quick-amount button: REPLACES the amount, then focus moves to the description, so
    /// "open → tap 25 → type a note → send" needs no other tap.
    public func tapQuickAmount(_ major: UInt64) {
        guard !isAmountLocked else { return }
        amount.applyQuickAmount(major)
        focus.focus(.description)
    }

    /// The form's primary action (also Return on the last field): shows the confirmation when
    /// nothing is missing; otherwise focuses the field to fix first.
    public func submit() {
        guard let summary else {
            confirmation = nil
            switch missing.first {
            case .recipient?, .validAccount?: focus.focus(.recipient)
            case .amount?, .funds?: if !isAmountLocked { focus.focus(.amount) }
            default: break
            }
            return
        }
        focus.clearFocus()
        confirmation = summary
    }

    /// Back from the confirmation to edit.
    public func dismissConfirmation() { confirmation = nil }

    // MARK: What the screen shows

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
        switch amount.result {
        case .success: break
        case .failure(.tooMuch):
            if case .insufficient(let short) = balanceLine { missing.append(.funds(shortBy: short, currency: currency)) }
        case .failure(.empty): missing.append(.amount(nil))
        case .failure(let e): missing.append(.amount(e))
        }
        return missing
    }

    /// Whether Send is enabled.
    public var canSend: Bool { missing.isEmpty }

    /// The summary card once everything is in.
    public var summary: Summary? {
        guard missing.isEmpty, let recipient, let value = amount.minorUnits else { return nil }
        let name: String
        switch recipient {
        case .request(let r): name = r.payeeName.isEmpty ? "Scanned request" : r.payeeName
        case .account(let a): name = a
        }
        return Summary(
            recipientName: name, amount: value, currency: currency, method: method,
            description: note.trimmingCharacters(in: .whitespacesAndNewlines), remaining: available - value)
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
