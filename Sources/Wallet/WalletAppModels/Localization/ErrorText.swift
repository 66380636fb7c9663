import Foundation
import NearbySession
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// An error in the person's language: what went wrong and what to do in the app.
///
/// The engine's own descriptions are English and written for the command line ("run: wallet
/// sync"); the screens say the same in the app's words. A detail only the issuer or the
/// protocol can give (the issuer's refusal, what exactly was malformed) is passed through as a
/// value inside a translated sentence.
enum ErrorText {
    /// The sentence a screen shows for `error`.
    static func message(_ error: any Error) -> String {
        switch error {
        case let e as WalletError: wallet(e)
        case let e as IssuerClientError: issuer(e)
        case let e as WalletFlowError: flow(e)
        case let e as NearbyError:
            localized("error.nearby", "The connection to the other phone failed (%@). Try again.", e.description)
        case let e as VerificationError: rejected(e)
        default:
            // The app's own errors word themselves in the person's language; others say what
            // their module says.
            String(describing: error)
        }
    }

    static func wallet(_ error: WalletError) -> String {
        func money(_ minor: UInt64, _ currency: Currency) -> String { MoneyText.text(minor, currency: currency) }
        return switch error {
        case .insufficientFunds(let available, let requested, let currency):
            localized(
                "error.insufficientFunds", "Not enough offline money: %1$@ spendable, %2$@ needed. Buy notes while online.",
                money(available, currency), money(requested, currency))
        case .needsOnlineCheck(let amount, let currency):
            localized(
                "error.needsOnlineCheck",
                "%@ was restored from a backup and must be exchanged online before it can be spent offline. Sync while online.",
                money(amount, currency))
        case .needsRefresh(let amount, let currency):
            localized(
                "error.needsRefresh",
                "%@ needs a sync to be refreshed (at the hop limit or about to expire) before it can be spent. Sync while online.",
                money(amount, currency))
        case .tooManyNotes(let largest, let currency):
            localized(
                "error.tooManyNotes",
                "The money is spread over too many notes for one payment: at most %@ can be paid at once. Pay in parts, or sync online to consolidate.",
                money(largest, currency))
        case .notConfigured: localized("error.notConfigured", "The wallet has no issuer keyset yet. Go online and sync once.")
        case .authorityMismatch:
            localized(
                "error.authorityMismatch",
                "The issuer's authority key differs from the one this wallet trusts. Check the server address in Settings; do not continue."
            )
        case .staleKeyset:
            localized(
                "error.staleKeyset",
                "The issuer offered older keys than this wallet already has. Check the server address in Settings.")
        case .requestExpired: localized("error.requestExpired", "The payment request has expired. Ask the payee for a new one.")
        case .cannotPaySelf: localized("error.cannotPaySelf", "This request was made by this wallet; it cannot pay itself.")
        case .amountRequired: localized("error.amountRequired", "The request leaves the amount open: enter how much to pay.")
        case .invalidAmount(let why): localized("error.invalidAmount", "Invalid amount: %@.", why)
        case .requestNonceReused:
            localized(
                "error.requestNonceReused",
                "A different request with the same number was already paid. Ask the payee for a new request.")
        case .unknownRequest: localized("error.unknownRequest", "This wallet made no such payment request.")
        case .requestAlreadyPaid:
            localized("error.requestAlreadyPaid", "This request was already paid by another payment. Create a new request.")
        case .unknownPayment: localized("error.unknownPayment", "This wallet made no payment for that request.")
        case .holdingLimitExceeded(let limit, let wouldHold, let currency):
            localized(
                "error.holdingLimitExceeded",
                "Accepting would bring offline holdings to %1$@, above the limit %2$@. Sync first or ask for less.",
                money(wouldHold, currency), money(limit, currency))
        case .rejected(let why): rejected(why)
        case .doubleSpendDetected:
            localized(
                "error.doubleSpend",
                "Payment rejected: the payer already spent this money elsewhere. The proof is kept and will be reported on sync.")
        case .notOwnedByWallet: localized("error.notOwned", "These notes belong to another wallet.")
        case .wrongPassphrase: localized("error.wrongPassphrase", "Wrong passphrase, or the file was altered.")
        case .passphraseRequired: localized("error.passphraseRequired", "This file is encrypted: enter its passphrase.")
        case .walletExists: localized("error.walletExists", "A wallet already exists on this phone.")
        case .walletMissing:
            localized("error.walletMissing", "There is no wallet on this phone yet. Create one or restore a backup.")
        case .insecureKeyFile:
            localized("error.insecureKeyFile", "The wallet's key file can be read by others. Restore the wallet from a backup.")
        case .corruptFile(let why):
            localized("error.corruptFile", "The file is damaged or not a wallet file (%@).", why)
        case .storage(let why):
            localized("error.storage", "The wallet's storage failed: %@. Restart the app; if it persists, restore a backup.", why)
        }
    }

    static func rejected(_ why: VerificationError) -> String {
        localized("error.rejected", "Payment rejected: it is damaged or forged (%@).", why.description)
    }

    static func flow(_ error: WalletFlowError) -> String {
        switch error {
        case .noServer: localized("error.noServer", "No issuer is set: choose a server in Settings, then log in.")
        case .invalidServer(let text):
            localized("error.invalidServer", "“%@” is not a server address (for example https://issuer.example).", text)
        case .notLoggedIn: localized("error.notLoggedIn", "Not logged in: log in again.")
        case .loginExpired: localized("error.loginExpired", "The login has expired or was revoked: log in again.")
        }
    }

    static func issuer(_ error: IssuerClientError) -> String {
        if error.isUnreachable {
            return localized("error.issuerUnreachable", "Cannot reach the issuer. Check the connection and try again.")
        }
        return switch error.status {
        case 401: localized("error.loginExpired", "The login has expired or was revoked: log in again.")
        case 429, 503: localized("error.issuerBusy", "The issuer is busy. Try again in a minute.")
        default: localized("error.issuerRefused", "The issuer refused: %@", error.description)
        }
    }
}
