import Foundation
import Observation
import OfflineNotes
import WalletFlows
import WalletSync

/// The Deposit screen: how to put tokens from the person's own Ethereum wallet into the account.
/// It loads the issuer's instructions (network, escrow, token, this account's reference) and shows
/// the two steps as EIP-681 requests — approve, then deposit — each as a QR code an ordinary
/// Ethereum wallet scans and as text to copy. The amount is optional (Send's entry rules):
/// with one the requests carry it, without one the Ethereum wallet asks for it.
@Observable
@MainActor
public final class DepositModel: FocusableForm {
    public enum Field: CaseIterable, Hashable, Sendable { case amount }

    public enum Phase: Equatable, Sendable {
        /// Before `load()` or while it runs.
        case loading
        /// The instructions are in (see `plan`).
        case ready(DepositInstructions)
        /// This issuer does not settle through an escrow (nothing to retry).
        case notAvailable
        /// They could not be read or cannot be used; `message` says why and what to do.
        case failed(message: String, canRetry: Bool)
    }

    public let session: WalletSession
    public let currency: Currency
    public var focus = FormFocus<Field>(initial: nil)
    /// The optional amount (no maximum: the tokens are the person's own).
    public var amount: AmountEntry
    public private(set) var phase: Phase = .loading

    public init(session: WalletSession, currency: Currency, locale: Locale = .current) {
        self.session = session
        self.currency = currency
        amount = AmountEntry(currency: currency, locale: locale)
    }

    /// Reads the instructions from the issuer; refuses ones that cannot be shown as they are
    /// (the token's decimals not the currency's minor-unit digits, another currency, a
    /// malformed address or reference: `EscrowDepositPlan`).
    public func load() async {
        phase = .loading
        do {
            let instructions = try await session.client.depositInstructions()
            do throws(EscrowDepositError) {
                _ = try EscrowDepositPlan(instructions, currency: currency)
                phase = .ready(instructions)
            } catch {
                phase = .failed(message: ErrorText.message(error), canRetry: false)
            }
        } catch let error as IssuerClientError where error.isEscrowNotConfigured {
            phase = .notAvailable
        } catch let error as IssuerClientError where error.isUnreachable {
            phase = .failed(message: ErrorText.message(error), canRetry: true)
        } catch {
            phase = .failed(
                message: localized(
                    "deposit.readFailed", "The deposit instructions could not be read: %@", ErrorText.message(error)),
                canRetry: true)
        }
    }

    /// A quick amount replaces the amount.
    public func tapQuickAmount(_ major: UInt64) { amount.applyQuickAmount(major) }

    /// Return on the amount field: the keyboard goes away (the requests follow the field).
    public func submit() { focus.clearFocus() }

    // MARK: What the screen shows

    /// The instructions with the two requests for the amount typed; nil before they are in and
    /// while the amount field holds text that is not an amount (no request then: one without
    /// the amount would be mistaken for one with it).
    public var plan: EscrowDepositPlan? {
        guard case .ready(let instructions) = phase else { return nil }
        let value: UInt64?
        switch amount.result {
        case .success(let v): value = v
        case .failure(.empty): value = nil
        case .failure: return nil
        }
        return try? EscrowDepositPlan(instructions, currency: currency, amount: value)
    }

    /// Step 1's QR code content: the token's approve for the escrow.
    public var approveURI: String? { plan?.approveURI }
    /// Step 2's QR code content: the escrow's deposit with this account's reference.
    public var depositURI: String? { plan?.depositURI }
    /// Everything as text, for Copy and Share.
    public var copyText: String? { plan?.text }
    /// The account reference alone, for Copy (wallets that cannot scan EIP-681 ask for it).
    public var accountReference: String? { if case .ready(let i) = phase { i.accountRef } else { nil } }
    /// The escrow's address alone, for Copy.
    public var escrowAddress: String? { if case .ready(let i) = phase { i.escrow } else { nil } }

    /// The amount field's error (nil while empty or valid).
    public var amountError: AmountEntryError? { amount.error }

    /// The lines above the codes: the network, the confirmations and what the amount does.
    public var summaryText: String? {
        guard case .ready(let i) = phase else { return nil }
        let chainID = String(i.chainID)
        let confirmations = localized(
            "deposit.confirmations", count: i.confirmations, one: "%lld confirmation", other: "%lld confirmations")
        guard let value = amount.minorUnits else {
            return localized(
                "deposit.summaryOpenAmount",
                "Deposit the amount you choose in your Ethereum wallet on the network with chain ID %1$@: first approve, then deposit, from the wallet that holds the tokens. Credited after %2$@; then buy notes with it.",
                chainID, confirmations)
        }
        return localized(
            "deposit.summary",
            "Deposit %1$@ on the network with chain ID %2$@: first approve, then deposit, from the wallet that holds the tokens. Credited after %3$@; then buy notes with it.",
            MoneyText.text(value, currency: currency), chainID, confirmations)
    }

    /// The line for a failure or an issuer without an escrow; nil otherwise.
    public var phaseText: String? {
        switch phase {
        case .loading: localized("deposit.loading", "Reading the deposit instructions…")
        case .ready: nil
        case .notAvailable: ErrorText.message(IssuerClientError.escrowNotConfigured)
        case .failed(let message, _): message
        }
    }

    /// Whether "Try again" is offered.
    public var canRetry: Bool { if case .failed(_, true) = phase { true } else { false } }
}
