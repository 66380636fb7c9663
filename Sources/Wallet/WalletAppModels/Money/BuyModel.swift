import Foundation
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// The Buy sheet: the person chooses how much of the settled balance to turn into offline notes
/// (the original product silently bought the auto-recharge amount). The amount is capped by
/// what the wallet may still hold offline (the risk budget left), which is shown with the limit.
@Observable
@MainActor
public final class BuyModel: FocusableForm {
    public enum Field: CaseIterable, Hashable, Sendable { case amount }

    /// Why nothing was bought, with what to do.
    public enum BuyError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The issuer cannot be reached. A purchase whose answer was lost is remembered and
        /// finished (charged once) by the next buy or sync.
        case offline
        /// The account's settled balance is below the amount.
        case insufficientAccountFunds(String)
        /// Above what the wallet may hold offline (the limit, minor units).
        case aboveHoldingLimit(limit: UInt64, currency: Currency)
        /// The account is frozen (after a double spend, or by the operator).
        case accountFrozen
        /// The amount field is not a usable amount.
        case invalidAmount(AmountEntryError)
        /// Anything else the issuer or the wallet said.
        case other(String)

        public var description: String {
            switch self {
            case .offline:
                localized(
                    "buy.offline",
                    "The issuer cannot be reached. The purchase is kept: it completes on the next sync once you are online, and is never charged twice."
                )
            case .insufficientAccountFunds(let detail):
                localized("buy.insufficientFunds", "Not enough money in the account. %@", detail)
            case .aboveHoldingLimit(let limit, let currency):
                localized(
                    "buy.aboveHoldingLimit", "The wallet may hold at most %@ offline. Spend or sync first, or buy less.",
                    MoneyText.text(limit, currency: currency))
            case .accountFrozen:
                localized(
                    "buy.accountFrozen",
                    "This account is frozen, after a double spend or by the issuer's operator. Contact support.")
            case .invalidAmount(let e): ErrorText.message(e)
            case .other(let text): text
            }
        }
    }

    /// What a purchase did.
    public struct Bought: Equatable, Sendable {
        public let amount: UInt64
        /// Offline spendable after it (nil when it could not be read).
        public let offlineSpendable: UInt64?
        /// The account's settled balance after it (nil when it could not be read).
        public let settled: Int64?
        public let riskBudgetLeft: UInt64

        public init(amount: UInt64, offlineSpendable: UInt64?, settled: Int64?, riskBudgetLeft: UInt64) {
            self.amount = amount
            self.offlineSpendable = offlineSpendable
            self.settled = settled
            self.riskBudgetLeft = riskBudgetLeft
        }
    }

    public enum Phase: Equatable, Sendable {
        case editing
        case buying
        case bought(Bought)
        case failed(BuyError)
    }

    public let session: WalletSession
    public var focus = FormFocus<Field>(initial: .amount)
    public var amount: AmountEntry
    public private(set) var phase: Phase = .editing
    /// The issuer's offline holding limit, shown under the field.
    public private(set) var holdingLimit: UInt64
    /// How much more may be bought now: the amount field's maximum.
    public private(set) var riskBudgetLeft: UInt64

    /// A sheet opened from what the home screen shows (`balance` from its snapshot).
    public init(session: WalletSession, balance: Balance, locale: Locale = .current) {
        self.session = session
        holdingLimit = balance.holdingLimit
        riskBudgetLeft = balance.riskBudgetLeft
        amount = AmountEntry(currency: balance.currency, locale: locale, maximum: balance.riskBudgetLeft)
    }

    public var currency: Currency { amount.currency }
    public var canBuy: Bool { amount.minorUnits != nil && phase != .buying }

    /// The sheet appeared: the amount field takes focus.
    public func appear() { focus.appear() }

    /// A quick amount replaces the amount.
    public func applyQuickAmount(_ major: UInt64) { amount.applyQuickAmount(major) }

    /// Return on the amount field, or the Buy button.
    public func submit() { Task { await buy() } }

    /// Buys the amount typed. A buy while one runs does nothing.
    public func buy() async {
        guard phase != .buying else { return }
        let value: UInt64
        switch amount.result {
        case .success(let v): value = v
        case .failure(.tooMuch): return fail(.aboveHoldingLimit(limit: holdingLimit, currency: currency))
        case .failure(let e): return fail(.invalidAmount(e))
        }
        focus.clearFocus()
        phase = .buying
        let bought: UInt64
        do {
            bought = try await session.purchase(value)
        } catch {
            return fail(Self.buyError(error, limit: holdingLimit, currency: currency))
        }
        // The notes are in the wallet now: a failed read afterwards must not report the
        // purchase as failed (the person would buy again).
        let balance = try? await AsyncWallet(session.wallet).balance()
        if let balance { update(balance) }
        let settled = try? await session.account().balance
        phase = .bought(
            Bought(
                amount: bought, offlineSpendable: balance?.spendable, settled: settled,
                riskBudgetLeft: balance?.riskBudgetLeft ?? riskBudgetLeft))
    }

    /// "Buy more" after a result or an error: back to the form, the amount kept.
    public func edit() {
        if phase != .buying { phase = .editing }
    }

    private func fail(_ error: BuyError) { phase = .failed(error) }

    private func update(_ balance: Balance) {
        holdingLimit = balance.holdingLimit
        riskBudgetLeft = balance.riskBudgetLeft
        amount.maximum = balance.riskBudgetLeft
    }

    static func buyError(_ error: any Error, limit: UInt64, currency: Currency) -> BuyError {
        guard let e = error as? IssuerClientError else { return .other(ErrorText.message(error)) }
        if e.isUnreachable { return .offline }
        switch e.code {
        case "insufficient_funds": return .insufficientAccountFunds(ErrorText.message(e))
        case "holding_limit_exceeded": return .aboveHoldingLimit(limit: limit, currency: currency)
        case "account_frozen": return .accountFrozen
        default: return .other(ErrorText.message(e))
        }
    }
}
