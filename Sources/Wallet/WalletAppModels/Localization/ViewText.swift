import Foundation

/// Labels the views compose from values the models already wrote ("Buy 20.00 EUR", "Problem:
/// …", a filter chip's "Sent, 3 transactions"): each is one whole sentence of the catalog with
/// the values in its placeholders, so no view glues words together.
public enum ViewText {
    // MARK: Components

    /// A quick-amount chip as VoiceOver reads it: "20 EUR".
    public static func quickAmount(_ amount: String, currency: String) -> String {
        localized("money.amount", "%1$@ %2$@", amount, currency)
    }

    /// What a quick-amount chip does: "Replaces the amount with 20 EUR".
    public static func quickAmountHint(_ amount: String, currency: String) -> String {
        localized("a11y.quickAmount.hint", "Replaces the amount with %1$@ %2$@", amount, currency)
    }

    /// An amount field's currency for VoiceOver: "in EUR".
    public static func amountFieldCurrency(_ currency: String) -> String {
        localized("a11y.amountField.currency", "in %@", currency)
    }

    /// A problem the screen shows: "Problem: the settled balance was not read".
    public static func problem(_ text: String) -> String { localized("a11y.problem", "Problem: %@", text) }

    /// An error the screen shows: "Error: …".
    public static func error(_ text: String) -> String { localized("a11y.error", "Error: %@", text) }

    // MARK: Home

    /// The online/offline pill as VoiceOver reads it: "Network: Online".
    public static func network(_ state: String) -> String { localized("a11y.network", "Network: %@", state) }

    /// A balance card's share: "46% of total".
    public static func shareOfTotal(_ share: String) -> String { localized("home.shareOfTotal", "%@ of total", share) }

    /// A balance card read as one element: "Offline notes: 12.50 EUR, 46% of total".
    public static func balancePart(_ title: String, amount: String, share: String) -> String {
        localized("a11y.balancePart", "%1$@: %2$@, %3$@ of total", title, amount, share)
    }

    /// The home screen's split bar as VoiceOver reads it.
    public static func split(offline: String, settled: String) -> String {
        localized("a11y.home.split", "Offline notes %1$@, settled %2$@", offline, settled)
    }

    // MARK: History

    /// An empty list's value: "None".
    public static var none: String { localized("history.none", "None") }

    /// A filter chip as VoiceOver reads it: "Sent, 3 transactions".
    public static func filterChip(_ title: String, count: Int) -> String {
        let transactions = localized(
            "history.transactionCount", count: count, one: "%lld transaction", other: "%lld transactions")
        return localized("a11y.filterChip", "%1$@, %2$@", title, transactions)
    }

    /// A transaction detail's heading: "Sent · Bob".
    public static func detailHeading(_ direction: String, counterparty: String) -> String {
        localized("history.detailHeading", "%1$@ · %2$@", direction, counterparty)
    }

    // MARK: Send and receive

    /// The Send button as VoiceOver reads it: "Send via QR".
    public static func sendButton(_ method: String) -> String { localized("a11y.send.button", "Send %@", method) }

    /// The available balance and the line under it, read as one element.
    public static func availableBalance(_ available: String, line: String) -> String {
        localized("a11y.send.available", "Available balance %1$@. %2$@", available, line)
    }

    /// The confirmation's button: "Send 12.50 EUR".
    public static func sendAmount(_ amount: String) -> String { localized("send.confirmButton", "Send %@", amount) }

    /// The confirmation's button as VoiceOver reads it: "Send 12.50 Euro to Bob".
    public static func sendAmountTo(_ amount: String, recipient: String) -> String {
        localized("a11y.send.confirmButton", "Send %1$@ to %2$@", amount, recipient)
    }

    /// The scanned request's "Send payment" button as VoiceOver reads it.
    public static func sendPaymentOf(_ amount: String, payee: String) -> String {
        localized("a11y.qrTab.sendPayment", "Send payment of %1$@ to %2$@", amount, payee)
    }

    /// The request's code as VoiceOver names it: "Payment request code for 12.50 EUR".
    public static func requestCode(amount: String?) -> String {
        guard let amount else { return localized("a11y.receive.requestCodeAnyAmount", "Payment request code for any amount") }
        return localized("a11y.receive.requestCode", "Payment request code for %@", amount)
    }

    /// The receipt's code as VoiceOver names it.
    public static var receiptCode: String { localized("a11y.receive.receiptCode", "Receipt code for the payer to scan") }

    /// The payment's code as VoiceOver names it.
    public static var paymentCode: String { localized("a11y.send.paymentCode", "The payment as a QR code for the payee to scan") }

    /// The home screen without a login.
    public static var loggedOut: String {
        localized(
            "root.loggedOut",
            "You are logged out. The wallet and its notes are on this phone: you can pay and receive offline. Log in to see the settled balance, buy notes and sync."
        )
    }

    /// The home screen while the issuer cannot be reached.
    public static var openOffline: String {
        localized(
            "root.openOffline",
            "The wallet is open offline: you can pay and receive. Balances and sync come back once the issuer can be reached.")
    }

    /// Why Receive does not offer the payment nearby: "Not offered nearby: …".
    public static func notOfferedNearby(_ problem: String) -> String {
        localized("a11y.receive.notNearby", "Not offered nearby: %@", problem)
    }

    /// The scanner's progress line: "Reading the code: 3 of 8 parts".
    public static func readingCode(_ progress: String) -> String {
        localized("scan.reading", "Reading the code: %@ parts", progress)
    }

    // MARK: Buy and withdraw

    /// The Buy button as VoiceOver reads it: "Buy 20.00 EUR".
    public static func buy(_ amount: String, currency: String) -> String {
        localized("a11y.buy.button", "Buy %1$@ %2$@", amount, currency)
    }

    /// The Withdraw button: "Withdraw 20.00 EUR".
    public static func withdraw(_ amount: String) -> String { localized("withdraw.button", "Withdraw %@", amount) }

    /// The Withdraw button as VoiceOver reads it: "Withdraw 20.00 EUR to 0x…".
    public static func withdrawTo(_ amount: String, address: String) -> String {
        localized("a11y.withdraw.button", "Withdraw %1$@ to %2$@", amount, address)
    }

    /// A transaction hash as VoiceOver reads it: "Transaction 0x…".
    public static func transaction(_ hash: String) -> String { localized("a11y.withdraw.transaction", "Transaction %@", hash) }

    // MARK: Deposit

    /// A deposit step's heading: "Step 1: Approve".
    public static func depositStep(_ number: Int, title: String) -> String {
        localized("deposit.step", "Step %1$@: %2$@", String(number), title)
    }

    /// A deposit step's code as VoiceOver reads it.
    public static func depositStepCode(_ number: Int, title: String) -> String {
        localized("a11y.deposit.stepCode", "Step %1$@, %2$@: code for your Ethereum wallet to scan", String(number), title)
    }

    /// A deposit step's share button: "Copy or share step 1".
    public static func depositStepShare(_ number: Int) -> String {
        localized("deposit.stepShare", "Copy or share step %@", String(number))
    }

    /// The deposit screen's values to copy into another wallet.
    public static var escrowAddress: String { localized("deposit.escrowAddress", "Escrow address") }
    public static var chainID: String { localized("deposit.chainID", "Chain ID") }
    public static var accountReference: String { localized("deposit.accountReference", "Account reference") }
    public static var tokenContract: String { localized("deposit.tokenContract", "Token contract") }
    /// A withdrawal's transaction hash, to copy.
    public static var transactionTitle: String { localized("withdraw.transaction", "Transaction") }

    /// The two steps of a deposit from an Ethereum wallet that scans codes.
    public static var approveStep: String { localized("deposit.approveStep", "Approve") }
    public static var approveStepExplanation: String {
        localized(
            "deposit.approveStepExplanation",
            "Scan with your Ethereum wallet and confirm: it allows the escrow to take the tokens.")
    }
    public static var depositStepTitle: String { localized("deposit.depositStep", "Deposit") }
    public static var depositStepExplanation: String {
        localized(
            "deposit.depositStepExplanation",
            "Once the approval is confirmed, scan this one and confirm: the escrow takes the tokens for your account.")
    }

    /// A copyable value's share button as VoiceOver reads it: "Copy or share: Escrow address".
    public static func copyOrShare(_ title: String) -> String { localized("a11y.copyOrShare", "Copy or share: %@", title) }

    // MARK: Forms

    /// The onboarding password rule: "At least 10 characters."
    public static func minimumPassword(_ length: Int) -> String {
        localized("onboarding.passwordRule", count: length, one: "At least %lld character.", other: "At least %lld characters.")
    }

    /// The onboarding passphrase rule.
    public static func passphraseRule(_ length: Int) -> String {
        let characters = localized("onboarding.characterCount", count: length, one: "%lld character", other: "%lld characters")
        return localized(
            "onboarding.passphraseRule",
            "A passphrase of at least %@ encrypts the wallet key on this phone. Leave both empty to rely on the phone's own protection.",
            characters)
    }

    /// The auto-recharge rule under its two fields.
    public static func autoRechargeRule(threshold: ClosedRange<UInt64>, target: ClosedRange<UInt64>) -> String {
        localized(
            "settings.autoRechargeRule",
            "When the offline balance falls below the first value, the next sync buys notes up to the second (from %1$@ to %2$@, and %3$@ to %4$@).",
            String(threshold.lowerBound), String(threshold.upperBound), String(target.lowerBound), String(target.upperBound))
    }
}

extension HomeModel.QuickAction {
    /// The quick action's button: "Send", "Receive", "Buy", "Scan".
    public var title: String {
        switch self {
        case .send: localized("home.action.send", "Send")
        case .receive: localized("home.action.receive", "Receive")
        case .buy: localized("home.action.buy", "Buy")
        case .scan: localized("home.action.scan", "Scan")
        }
    }

    /// What the quick action does, for VoiceOver.
    public var hint: String {
        switch self {
        case .send: localized("home.action.sendHint", "Pays someone, offline by QR or Bluetooth, or online")
        case .receive: localized("home.action.receiveHint", "Creates a payment request for someone to pay you")
        case .buy: localized("home.action.buyHint", "Buys offline notes with the settled balance")
        case .scan: localized("home.action.scanHint", "Opens the camera to read a payment request, a payment or a receipt")
        }
    }
}
