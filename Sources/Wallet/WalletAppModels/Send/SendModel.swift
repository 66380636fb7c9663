import Foundation
import NearbySession
import Observation
import OfflineNotes
import QRPayload
import WalletCore
import WalletFlows

/// The Send screen: recipient, amount, method, description, the summary card and the checklist
/// of what is still missing; then, after confirmation, the payment itself through the flow
/// layer (`send()`), its progress in `phase`, and "Try again" (`tryAgain()`).
///
/// The recipient is either a scanned payment request (paid offline, by QR or Bluetooth: it
/// carries the payee's key and the nonce the payment binds to) or a typed account email (paid
/// online from the settled balance). So the method and the recipient must agree, and what is
/// available depends on the method: offline spendable notes, or the settled balance.
///
/// ## Example
///
/// A scanned request paid over Bluetooth, as the Send sheet drives it (`AppModel.makeSend`
/// makes the model with its services already set):
///
/// ```swift
/// let send = SendModel(currency: eur, offlineSpendable: 10_000, settled: 0)
/// send.services = SendServices(wallet: wallet, dialer: dialer, sessionOptions: SessionOptions())
/// send.useRequest(scannedRequest)     // recipient and, for a fixed request, the amount
/// send.submit()                       // everything is in: `confirmation` is shown
/// await send.send()
/// if case .failed(let message, let canTryAgain) = send.phase {
///     print(message)
///     if canTryAgain { await send.tryAgain() }   // the same signed bytes, never a second payment
/// }
/// ```
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
            case .recipient: localized("send.needRecipient", "Scan the payee's request or enter their account email.")
            case .validAccount: localized("send.needValidAccount", "Enter the recipient's account email, e.g. name@example.com.")
            case .amount(let error): error.map(ErrorText.message) ?? localized("send.enterAmount", "Enter an amount.")
            case .funds(let short, let currency):
                localized(
                    "send.moreNeeded", "Insufficient balance: %@ more is needed.", MoneyText.text(short, currency: currency))
            case .requestForOffline:
                localized("send.offlineNeedsRequest", "Paying offline needs the payee's request: scan it, or choose Online.")
            case .offlineForRequest:
                localized("send.requestIsOffline", "A scanned request is paid offline: choose QR or Bluetooth.")
            case .currency(let requested, let held):
                localized("send.otherCurrency", "The request is in %1$@ and this wallet holds %2$@.", requested.code, held.code)
            case .freshRequest: localized("send.needsFreshRequest", "The request has expired. Ask the payee to show a new one.")
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
        /// The whole key id (16 hex digits) of the scanned request's payee, for the person to
        /// compare with the payee's screen: a name, or the 8 digits a nearby device
        /// advertises, can be copied by anyone. Nil for an online send (an account email).
        public let payeeKeyID: String?

        public init(
            recipientName: String, amount: UInt64, currency: Currency, method: SendMethod, description: String,
            remaining: UInt64, payeeKeyID: String? = nil
        ) {
            self.recipientName = recipientName
            self.amount = amount
            self.currency = currency
            self.method = method
            self.description = description
            self.remaining = remaining
            self.payeeKeyID = payeeKeyID
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
    /// Where the payment is (see `SendPhase`).
    public private(set) var phase: SendPhase = .editing
    /// What `send()` pays with; nil until the app (or a test) provides it.
    public var services: SendServices?
    /// QR: the signed payment as QR frames for the payee to scan (shown while waiting for the
    /// receipt; animate through them when there are several). Empty otherwise.
    public private(set) var paymentFrames: [String] = []
    /// The payment once signed: "Try again" resends exactly these bytes.
    public private(set) var signedPayment: OutgoingPayment?
    /// QR: why the last scanned receipt was not accepted (the payment still waits for one).
    public private(set) var receiptError: String?
    /// The device picked on the Nearby devices sheet: Bluetooth pays it (through its dialer,
    /// not `services.dialer`). Cleared with the request.
    public private(set) var nearbyPeer: NearbyPeer?
    @ObservationIgnored private var peerDialer: (any LinkDialer)?
    /// Bumped by every run, so progress from an earlier run cannot move a later one's phase.
    private var run = 0

    private var typedAccount = ""
    private var scannedRequest: PaymentRequest?
    let clock: any AppClock

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
        get { scannedRequest.map(\.payeeTitle) ?? typedAccount }
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
        guard !phase.isBusy else { return }
        if signedPayment?.request.nonce != request.nonce { forgetPayment() }
        if scannedRequest?.nonce != request.nonce {
            // Another request: a device picked for the old one is not its payee.
            nearbyPeer = nil
            peerDialer = nil
        }
        scannedRequest = request
        typedAccount = ""
        if !request.isOpenAmount { amount.set(minorUnits: request.amount) }
        // A malformed hint is ignored like an unknown kind (docs/protocol.md §4.5).
        let nearby = request.hints.contains { ($0.kind == .bluetooth || $0.kind == .tcp) && $0.isUsable }
        if !method.isOffline || !nearby { method = nearby ? .bluetooth : .qr }
        // The amount is set already when fixed: on to the description; otherwise the amount.
        focus.focus(request.isOpenAmount ? .amount : .description)
    }

    /// Removes the scanned request (its fixed amount is unlocked, the text is kept).
    public func clearRequest() {
        scannedRequest = nil
        nearbyPeer = nil
        peerDialer = nil
        forgetPayment()
    }

    /// A device picked on the Nearby devices sheet (`NearbyDevicesModel.pick`): Send prefilled
    /// with its request, paid by Bluetooth to that device.
    public func payNearby(_ request: PaymentRequest, peer: NearbyPeer, dialer: any LinkDialer) {
        guard !phase.isBusy else { return }
        useRequest(request)
        nearbyPeer = peer
        peerDialer = dialer
        method = .bluetooth
    }

    /// Another recipient: a payment signed for the old one is not this screen's any more (it
    /// stays in the wallet's pending payments, and paying that request again resends it).
    private func forgetPayment() {
        signedPayment = nil
        paymentFrames = []
        receiptError = nil
        if !phase.isBusy { phase = .editing }
        confirmation = nil
    }

    /// Whether the amount cannot be edited: it is the request's, or a payment is signed for it
    /// (Try again resends those bytes, so the amount they carry is the amount).
    public var isAmountLocked: Bool { signedPayment != nil || (scannedRequest.map { !$0.isOpenAmount } ?? false) }

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
        guard !phase.isBusy else { return }
        guard let summary else {
            confirmation = nil
            phase = .editing
            switch missing.first {
            case .recipient?, .validAccount?: focus.focus(.recipient)
            case .amount?, .funds?: if !isAmountLocked { focus.focus(.amount) }
            default: break
            }
            return
        }
        focus.clearFocus()
        confirmation = summary
        phase = .confirming(summary)
    }

    /// Back from the confirmation to edit.
    public func dismissConfirmation() {
        guard !phase.isBusy else { return }
        confirmation = nil
        phase = .editing
    }

    // MARK: Paying

    /// The confirmation's Send: runs the chosen method and returns when the payment is paid,
    /// failed, or (QR) waits for the receipt to be scanned. Does nothing unless confirming.
    public func send() async {
        guard case .confirming(let summary) = phase, let recipient else { return }
        guard let services else {
            phase = .failed(
                message: localized("send.walletNotOpen", "The wallet is not open yet. Close this screen and try again."),
                canTryAgain: false)
            return
        }
        switch recipient {
        case .account(let email): await sendOnline(to: email, amount: summary.amount, session: services.session)
        case .request(let request):
            let amount = request.isOpenAmount ? summary.amount : nil
            if summary.method == .qr {
                await signForQR(request, amount: amount, wallet: services.wallet)
            } else {
                await payNearby(request, amount: amount, services: services)
            }
        }
    }

    /// "Try again" after a failure that allows it: resends the payment already signed (the
    /// same bytes; the payee's wallet accepts a payment once), or shows its QR frames again.
    public func tryAgain() async {
        guard case .failed(_, true) = phase, case .request(let request)? = recipient, let services else { return }
        if method == .qr, let payment = signedPayment {
            paymentFrames = (try? QRFrames.encode(payment.bundle)) ?? paymentFrames
            phase = .waitingForReceipt
        } else {
            await payNearby(request, amount: request.isOpenAmount ? amount.minorUnits : nil, services: services)
        }
    }

    /// QR: the payee's receipt, scanned back (from `ScanAssembler`'s `.confirm`). A receipt
    /// that is not for this payment leaves it waiting, with `receiptError` saying why.
    public func acceptReceipt(_ receipt: Receipt) async {
        guard phase == .waitingForReceipt, method == .qr, let services, let payment = signedPayment else { return }
        // The wallet would confirm any of its pending payments' receipts; this screen waits
        // for this payment's (an old receipt still on the payee's screen must not mark it paid).
        guard receipt.paymentID == payment.id else {
            receiptError = localized(
                "send.receiptForOtherPayment",
                "This receipt is not for this payment (it is for %@). Scan the receipt the payee shows for it.",
                MoneyText.text(receipt.amount, currency: receipt.currency))
            return
        }
        do {
            let done = try await AsyncWallet(services.wallet).confirm(receipt: receipt.encoded)
            receiptError = nil
            phase = .paid(amount: done.amount)
        } catch {
            receiptError = localized(
                "send.receiptRefused", "This receipt is not for this payment (%@). Scan the receipt the payee shows for it.",
                ErrorText.message(error))
        }
    }

    private func signForQR(_ request: PaymentRequest, amount: UInt64?, wallet: Wallet) async {
        phase = .signing
        do {
            let payment = try await AsyncWallet(wallet).pay(request, amount: amount, method: .qr)
            signedPayment = payment
            paymentFrames = try QRFrames.encode(payment.bundle)
            receiptError = nil
            phase = .waitingForReceipt
        } catch let error as WalletError {
            phase = .failed(
                message: localized("send.nothingPaid", "%@ Nothing was paid.", SendFailure.message(for: error)),
                canTryAgain: false)
        } catch {
            // Too many frames for one code sequence: the payment is signed and kept (paying
            // the same request by Bluetooth resends it).
            phase = .failed(
                message: localized(
                    "send.tooLargeForQR", "The payment is too large to show as QR codes (%@). Pay it by Bluetooth.",
                    ErrorText.message(error)),
                canTryAgain: false)
        }
    }

    private func payNearby(_ request: PaymentRequest, amount: UInt64?, services: SendServices) async {
        guard let dialer = services.nearbyDialer(for: request, picked: peerDialer) else {
            phase = .failed(
                message: localized("send.bluetoothUnavailable", "Bluetooth is not available. Turn it on, or pay by QR."),
                canTryAgain: false)
            return
        }
        run += 1
        let thisRun = run
        let flow = NearbyPayFlow(wallet: services.wallet, options: services.sessionOptions, method: Self.nearbyMethod)
        let payment: OutgoingPayment
        if let signed = signedPayment {
            payment = signed
        } else {
            phase = .signing
            switch await Self.sign(flow, request, amount: amount) {
            case .success(let p): payment = p
            case .failure(let error):
                phase = .failed(message: SendFailure.message(for: error), canTryAgain: error.canTryAgain)
                return
            }
            signedPayment = payment
        }
        phase = .sending(sent: 0, total: payment.bundle.count)
        // The flow reports from the session's threads; a stream keeps the events in order and
        // is drained before the outcome is shown, so no late event overwrites it.
        let (events, sink) = AsyncStream.makeStream(of: NearbyProgress.self)
        let watcher = Task { @MainActor [weak self] in
            for await event in events { self?.progressed(event, run: thisRun) }
        }
        let outcome = await Self.deliver(flow, payment, dialer: dialer) { sink.yield($0) }
        sink.finish()
        await watcher.value
        switch outcome {
        case .success(let done): phase = .paid(amount: done.payment.amount)
        case .failure(let error): phase = .failed(message: SendFailure.message(for: error), canTryAgain: error.canTryAgain)
        }
    }

    private func progressed(_ event: NearbyProgress, run: Int) {
        guard run == self.run, phase.isBusy else { return }
        switch event {
        case .sending(let sent, let total): phase = .sending(sent: sent, total: total)
        case .waitingForReceipt: phase = .waitingForReceipt
        case .fetchingRequest, .signed, .connecting, .handshake, .resumed, .paid: break
        }
    }

    private func sendOnline(to email: String, amount: UInt64, session: WalletSession?) async {
        guard let session else {
            phase = .failed(
                message: localized("send.logInToSendOnline", "Log in to the issuer to send online."), canTryAgain: false)
            return
        }
        phase = .contactingServer
        do {
            _ = try await session.sendOnline(to: email, amount: amount)
            phase = .paid(amount: amount)
        } catch {
            // Not retried blindly: an answer lost after the issuer moved the money would make
            // a second transfer. The history shows whether this one went through.
            phase = .failed(
                message: localized(
                    "send.transferFailed",
                    "The transfer to %1$@ did not go through: %2$@. Check the history before sending again.", email,
                    ErrorText.message(error)),
                canTryAgain: false)
        }
    }

    /// Signing reads and writes the database and signs: off the main actor.
    @concurrent
    private nonisolated static func sign(
        _ flow: NearbyPayFlow, _ request: PaymentRequest, amount: UInt64?
    ) async
        -> Result<OutgoingPayment, NearbyPayError>
    {
        Result { () throws(NearbyPayError) in try flow.sign(request, amount: amount) }
    }

    /// The session, then the receipt's verification and write: off the main actor.
    @concurrent
    private nonisolated static func deliver(
        _ flow: NearbyPayFlow, _ payment: OutgoingPayment, dialer: any LinkDialer,
        progress: @escaping @Sendable (NearbyProgress) -> Void
    ) async -> Result<NearbyPayResult, NearbyPayError> {
        do {
            let session = try await flow.send(payment, dialer: dialer, progress: progress)
            return .success(try flow.confirm(payment, session: session))
        } catch {
            return .failure(error)
        }
    }
}
