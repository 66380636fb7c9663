import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// The Withdraw screen: money from the settled balance to an address on the blockchain. The person types
/// the amount (the Send screen's rules: `AmountEntry`, quick amounts replace it) and the address
/// (checked for its form here; a mixed-case checksum by the issuer), confirms a summary, and the
/// screen follows the payout until it is paid or refused. `recent` lists the account's
/// withdrawals with their payout status.
///
/// A withdrawal is sent through `WalletSession.withdraw`, which saves its idempotency key first:
/// if the answer is lost, confirming the same amount to the same address again is answered with
/// the same withdrawal (debited once).
@Observable
@MainActor
public final class WithdrawModel: FocusableForm {
    /// The form's fields in focus order: amount, then address.
    public enum Field: CaseIterable, Hashable, Sendable {
        case amount, address
    }

    /// One line of the checklist of what is still missing before Withdraw is enabled.
    public enum Requirement: Equatable, Sendable, CustomStringConvertible {
        /// The amount is empty or not usable (the entry's error says why).
        case amount(AmountEntryError?)
        /// Above the settled balance by `shortBy`.
        case funds(shortBy: UInt64, currency: Currency)
        /// The address is empty or not an address's form.
        case address(EVMAddressError)

        public var description: String {
            switch self {
            case .amount(let error): error.map(ErrorText.message) ?? localized("withdraw.enterAmount", "Enter an amount.")
            case .funds(let short, let currency):
                localized(
                    "withdraw.moreNeeded", "Insufficient balance: %@ more is needed.", MoneyText.text(short, currency: currency))
            case .address(let error): ErrorText.message(error)
            }
        }
    }

    /// The confirmation card.
    public struct Summary: Equatable, Sendable {
        public let amount: UInt64
        public let currency: Currency
        /// The address as typed (the issuer checks its checksum).
        public let address: String
        /// What is left of the settled balance afterwards.
        public let remaining: UInt64
    }

    /// Why a withdrawal was not made, with what to do.
    public enum WithdrawError: Error, Equatable, Sendable, CustomStringConvertible {
        /// No answer from the issuer: the request is kept and sent again (same key) when the
        /// same withdrawal is confirmed again — never debited twice.
        case offline
        /// The issuer answered with a failure that leaves the outcome unknown (busy, an error
        /// of its own): kept and sent again like `offline`.
        case notConfirmed(String)
        /// This issuer does not settle through an escrow.
        case notAvailable
        /// The account's settled balance is below the amount (the issuer's words).
        case insufficientFunds(String)
        /// The issuer refused the address (a wrong checksum, the zero address).
        case invalidAddress(String)
        /// The account is frozen (after a double spend, or by the operator).
        case accountFrozen
        /// Anything else the issuer said.
        case other(String)

        public var description: String {
            switch self {
            case .offline:
                localized(
                    "withdraw.offline",
                    "The issuer cannot be reached. The withdrawal is kept: confirm the same amount to the same address again once online, and it is made once, never twice."
                )
            case .notConfirmed(let detail):
                localized(
                    "withdraw.notConfirmed",
                    "The issuer did not confirm the withdrawal: %@ It is kept: confirm the same amount to the same address again later, and it is made once, never twice.",
                    detail)
            case .notAvailable: ErrorText.message(IssuerClientError.escrowNotConfigured)
            case .insufficientFunds(let detail):
                localized("withdraw.insufficientFunds", "Not enough money in the account. %@", detail)
            case .invalidAddress(let detail):
                localized(
                    "withdraw.invalidAddress",
                    "The issuer refused the address: %@ Check it in your Ethereum wallet and copy it again.",
                    detail)
            case .accountFrozen:
                localized(
                    "withdraw.accountFrozen",
                    "This account is frozen, after a double spend or by the issuer's operator. Contact support.")
            case .other(let text): text
            }
        }
    }

    public enum Phase: Equatable, Sendable {
        case editing
        /// The summary is shown; `withdraw()` sends it.
        case confirming(Summary)
        /// The request is with the issuer.
        case submitting
        /// Debited; the payout is pending or sent (`track()` follows it).
        case tracking(EscrowWithdrawal)
        /// Paid or refused on the blockchain (refused: the money is back on the account).
        case finished(EscrowWithdrawal)
        case failed(WithdrawError)

        /// A request or the tracking of one is under way.
        public var isBusy: Bool {
            switch self {
            case .submitting, .tracking: true
            case .editing, .confirming, .finished, .failed: false
            }
        }
    }

    public let session: WalletSession
    public let currency: Currency
    public var focus = FormFocus<Field>(initial: .amount)
    public var amount: AmountEntry
    /// The address field's text, as typed.
    public var address: String = ""
    /// The settled balance withdrawals come from; the amount's maximum follows it.
    public var settled: UInt64 { didSet { amount.maximum = settled } }
    public private(set) var phase: Phase = .editing
    /// The account's withdrawals, newest first (after `load()`), each with its payout status.
    public private(set) var recent: [EscrowWithdrawal] = []
    /// Why `recent` could not be read (nil when it was, or before `load()`).
    public private(set) var loadError: String?
    /// Seconds between two questions to the issuer while a payout is tracked.
    public var pollSeconds: UInt64 = 2
    private let clock: any AppClock

    public init(
        session: WalletSession, currency: Currency, settled: UInt64, clock: any AppClock = SystemClock(),
        locale: Locale = .current
    ) {
        self.session = session
        self.currency = currency
        self.settled = settled
        self.clock = clock
        amount = AmountEntry(currency: currency, locale: locale, maximum: settled)
    }

    // MARK: What the person does

    /// The screen appeared: the amount field takes focus.
    public func appear() { focus.appear() }

    /// A quick-amount button: REPLACES the amount, then focus moves to the address.
    public func tapQuickAmount(_ major: UInt64) {
        guard !phase.isBusy else { return }
        amount.applyQuickAmount(major)
        focus.focus(.address)
    }

    /// The form's primary action (also Return on the address): shows the confirmation when
    /// nothing is missing; otherwise focuses the field to fix first.
    public func submit() {
        guard !phase.isBusy else { return }
        guard let summary else {
            phase = .editing
            switch missing.first {
            case .amount?, .funds?: focus.focus(.amount)
            case .address?: focus.focus(.address)
            case nil: break
            }
            return
        }
        focus.clearFocus()
        phase = .confirming(summary)
    }

    /// Back from the confirmation (or a result) to edit; the fields are kept.
    public func edit() {
        if !phase.isBusy { phase = .editing }
    }

    /// The confirmation's Withdraw: sends the request, then follows the payout (`track()`)
    /// until it is paid or refused. Does nothing unless confirming.
    public func withdraw() async {
        guard case .confirming(let summary) = phase else { return }
        phase = .submitting
        let result: WithdrawalRequestResult
        do {
            result = try await session.withdraw(amount: summary.amount, to: summary.address)
        } catch {
            phase = .failed(Self.withdrawError(error))
            return
        }
        settled -= min(settled, summary.amount)
        remember(result.withdrawal)
        if let earlier = result.earlier { remember(earlier) }
        phase = result.withdrawal.status.isFinal ? .finished(result.withdrawal) : .tracking(result.withdrawal)
        await track()
    }

    /// Asks the issuer about the tracked withdrawal every `pollSeconds` until it is paid or
    /// refused. Returns early when the task is cancelled (the screen closed) or the issuer
    /// cannot be reached; the withdrawal stays `tracking` then, and `track()` goes on later.
    public func track() async {
        while case .tracking(let current) = phase {
            do {
                try await clock.sleep(until: clock.now() + pollSeconds)
                let next = try await session.client.withdrawal(id: current.id)
                guard case .tracking(let still) = phase, still.id == next.id else { return }
                remember(next)
                phase = next.status.isFinal ? .finished(next) : .tracking(next)
            } catch {
                return
            }
        }
    }

    /// Reads the settled balance and the account's withdrawals (finishing first a withdrawal
    /// whose answer was lost, so it is listed).
    public func load() async {
        do {
            try await session.finishPendingWithdrawal()
            recent = try await session.client.withdrawals()
            loadError = nil
            if !phase.isBusy { settled = UInt64(max(0, try await session.account().balance)) }
        } catch {
            loadError = Self.withdrawError(error).description
        }
    }

    private func remember(_ withdrawal: EscrowWithdrawal) {
        if let i = recent.firstIndex(where: { $0.id == withdrawal.id }) {
            recent[i] = withdrawal
        } else {
            recent.insert(withdrawal, at: 0)
        }
    }

    // MARK: What the screen shows

    /// The address's form (nil while empty: no error before the person typed anything).
    public var addressError: EVMAddressError? {
        guard !address.isEmpty else { return nil }
        do { _ = try AddressFormat.check(address) } catch { return error }
        return nil
    }

    /// "Remaining" / "Insufficient balance" under the amount.
    public var balanceLine: AmountEntry.BalanceLine { amount.balanceLine(available: settled) }

    /// The checklist, in the order the form is filled; empty when Withdraw can be pressed.
    public var missing: [Requirement] {
        var missing: [Requirement] = []
        switch amount.missing(available: settled) {
        case .amount(let e)?: missing.append(.amount(e))
        case .funds(let short)?: missing.append(.funds(shortBy: short, currency: currency))
        case nil: break
        }
        do { _ = try AddressFormat.check(address) } catch { missing.append(.address(error)) }
        return missing
    }

    /// Whether Withdraw is enabled.
    public var canWithdraw: Bool { missing.isEmpty && !phase.isBusy }

    /// The summary card once everything is in.
    public var summary: Summary? {
        guard missing.isEmpty, let value = amount.minorUnits, let checked = try? AddressFormat.check(address) else { return nil }
        return Summary(amount: value, currency: currency, address: checked, remaining: settled - min(settled, value))
    }

    static func withdrawError(_ error: any Error) -> WithdrawError {
        if let e = error as? EVMAddressError { return .invalidAddress(ErrorText.message(e)) }
        guard let e = error as? IssuerClientError else { return .other(ErrorText.message(error)) }
        if e.isUnreachable { return .offline }
        if e.status >= 500 || e.status == 429 { return .notConfirmed(ErrorText.message(e)) }
        if e.isEscrowNotConfigured { return .notAvailable }
        switch e.code {
        case "insufficient_funds": return .insufficientFunds(ErrorText.message(e))
        case "account_frozen": return .accountFrozen
        case "invalid_field", "invalid_address": return .invalidAddress(ErrorText.message(e))
        default: return .other(ErrorText.message(e))
        }
    }
}

extension WithdrawModel {
    /// "Available: 12.00 EUR" — the settled balance.
    public var availableText: String {
        localized("withdraw.available", "Available: %@", MoneyText.text(settled, currency: currency))
    }
    /// "Remaining: x" or "Insufficient balance: x short".
    public var balanceLineText: String { balanceLine.text(currency: currency) }
    /// The line under the address field: what is wrong with it, else what the wallet checks
    /// and what it leaves to the issuer.
    public var addressText: String {
        if let addressError { return ErrorText.message(addressError) }
        // The wording of `AddressFormat.checksumNote`, in the person's language.
        return localized(
            "withdraw.checksumNote",
            "A mixed-case address carries an EIP-55 checksum; the issuer verifies it and refuses a mistyped address before anything is debited."
        )
    }
    /// The progress or outcome line for the phase; nil while editing or confirming.
    public var phaseText: String? {
        switch phase {
        case .editing, .confirming: nil
        case .submitting: localized("withdraw.submitting", "Asking the issuer…")
        case .tracking(let w): Self.statusText(w, currency: currency)
        case .finished(let w): Self.statusText(w, currency: currency)
        case .failed(let error): error.description
        }
    }

    /// One withdrawal's status in words ("Paid 12.00 EUR to 0xAb…: transaction 0x…").
    public static func statusText(_ w: EscrowWithdrawal, currency: Currency) -> String {
        let much = MoneyText.text(w.amount, currency: currency)
        switch (w.status, w.txHash, w.reason) {
        case (.pending, _, _):
            return localized(
                "withdraw.statusPending", "%1$@ to %2$@ is debited; the issuer sends the payout shortly.", much, w.to)
        case (.sent, let tx?, _):
            return localized(
                "withdraw.statusSent", "%1$@ to %2$@ is sent on the blockchain (transaction %3$@); waiting for it to be mined.",
                much,
                w.to, tx)
        case (.sent, nil, _):
            return localized(
                "withdraw.statusSentNoTransaction",
                "%1$@ to %2$@ is sent on the blockchain (transaction not known yet); waiting for it to be mined.", much, w.to)
        case (.paid, let tx?, _):
            return localized(
                "withdraw.statusPaid",
                "Paid %1$@ to %2$@ on the blockchain (transaction %3$@). It shows in your Ethereum wallet.", much,
                w.to, tx)
        case (.paid, nil, _):
            return localized(
                "withdraw.statusPaidNoTransaction",
                "Paid %1$@ to %2$@ on the blockchain (transaction not known). It shows in your Ethereum wallet.", much, w.to)
        case (.refused, _, let reason?):
            // The reason is the EVM's or the issuer's own words, shown as given.
            return localized(
                "withdraw.statusRefused",
                "The blockchain refused the payout of %1$@ to %2$@ (%3$@); the amount is back on your account.",
                much, w.to, reason)
        case (.refused, _, nil):
            return localized(
                "withdraw.statusRefusedNoReason",
                "The blockchain refused the payout of %1$@ to %2$@; the amount is back on your account.",
                much, w.to)
        }
    }

    /// The rows of `recent` as the screen lists them.
    public var recentTexts: [String] { recent.map { Self.statusText($0, currency: currency) } }
}

extension WithdrawModel.Summary {
    public var amountText: String { MoneyText.text(amount, currency: currency) }
    public var remainingText: String { MoneyText.text(remaining, currency: currency) }
    /// What confirming does, in one sentence.
    public var confirmationText: String {
        localized(
            "withdraw.confirmation",
            "Withdraw %1$@ to %2$@? It is debited from your account now and paid out on the blockchain by the issuer; a payout cannot be taken back.",
            amountText, address)
    }
}
