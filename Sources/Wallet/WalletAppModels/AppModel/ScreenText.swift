import Foundation
import OfflineNotes
import WalletCore
import WalletFlows

// The words and numbers the SwiftUI views draw, computed here so the views stay bindings: they
// import only SwiftUI and this module, and never format money, pick a message or do arithmetic.

/// Money as the screens write it ("12.50 EUR", "12,50 EUR" in French) and as VoiceOver says it
/// ("12.50 Euro"), in the current language's locale (``Localization``).
public enum MoneyText {
    /// "12.50 EUR": the amount in the currency's minor-unit digits with the locale's decimal
    /// separator, then the code, in the order the language writes them.
    public static func text(_ minor: UInt64, currency: Currency) -> String {
        localized("money.amount", "%1$@ %2$@", number(minor, currency: currency), currency.code)
    }

    /// A signed balance (the settled account goes negative only after a double spend was
    /// charged): "−3.00 EUR".
    public static func text(signed minor: Int64, currency: Currency) -> String {
        guard minor < 0 else { return text(UInt64(minor), currency: currency) }
        return localized("money.negative", "−%@", text(minor.magnitude, currency: currency))
    }

    /// The amount alone, "12.50" ("12,50" in French): exact minor units, no grouping, the
    /// locale's decimal separator.
    public static func number(_ minor: UInt64, currency: Currency, locale: Locale = Localization.current.locale) -> String {
        let plain = Amount.format(minor, currency: currency)
        let separator = locale.decimalSeparator ?? "."
        return separator == "." ? plain : plain.replacingOccurrences(of: ".", with: separator)
    }

    /// What VoiceOver reads: the amount then the currency's name in the current language
    /// ("12.50 Euro"), so it does not spell out the code letter by letter.
    public static func spoken(_ minor: UInt64, currency: Currency) -> String {
        let locale = Localization.current.locale
        let name = locale.localizedString(forCurrencyCode: currency.code) ?? currency.code
        return localized("money.spoken", "%1$@ %2$@", number(minor, currency: currency, locale: locale), name)
    }

    /// A share in thousandths as a whole percentage, rounded half up: 455 → "46%".
    public static func percent(permille: Int) -> String {
        localized("money.percent", "%@%%", "\((max(0, min(1000, permille)) + 5) / 10)")
    }
}

extension HomeModel {
    /// The total, or "—" before the first snapshot (no currency known yet).
    public var totalText: String { currency.map { MoneyText.text(total, currency: $0) } ?? "—" }
    /// The total as VoiceOver reads it.
    public var totalSpoken: String {
        currency.map { MoneyText.spoken(total, currency: $0) } ?? localized("home.balanceNotRead", "Balance not read yet")
    }
    /// The offline-notes card.
    public var offlineText: String { currency.map { MoneyText.text(offlineTotal, currency: $0) } ?? "—" }
    /// The settled card: "Not read yet" until the issuer answered once.
    public var settledText: String {
        guard let currency, let settled else { return localized("home.settledNotRead", "Not read yet") }
        return MoneyText.text(signed: settled, currency: currency)
    }
    /// Each card's share of the total ("46%").
    public var offlineShareText: String { MoneyText.percent(permille: split.offlinePermille) }
    public var settledShareText: String { MoneyText.percent(permille: split.settledPermille) }
    /// The split bar's offline part, 0…1 (drawing only; money stays in integers).
    public var offlineFraction: Double { Double(split.offlinePermille) / 1000 }
    /// The online/offline pill: "Online", "Offline", or "Checking…" before the monitor spoke.
    public var connectivityText: String {
        switch connectivity {
        case .online?: localized("home.online", "Online")
        case .offline?: localized("home.offline", "Offline")
        case nil: localized("home.checking", "Checking…")
        }
    }
    /// The sync line under "Updated x ago" while refreshing or after a failure; nil when idle.
    public var refreshText: String? {
        switch refreshState {
        case .idle: nil
        case .syncing(nil): localized("home.syncing", "Syncing…")
        case .syncing(let progress?):
            localized(
                "home.syncingStep", "Syncing: step %1$@ of %2$@, %3$@", String(progress.index), String(progress.count),
                SyncText.step(progress.step))
        case .failed(let message): message
        }
    }
    /// The newest transactions as the history tab draws its rows.
    public var recentRows: [HistoryModel.Row] {
        let now = clock.now()
        return recent.map { HistoryModel.row($0, now: now) }
    }
}

extension BuyModel {
    /// "You can buy up to x now": the amount field's maximum.
    public var riskBudgetLeftText: String {
        localized("buy.riskBudgetLeft", "You can buy up to %@ now.", MoneyText.text(riskBudgetLeft, currency: currency))
    }
    /// "The wallet may hold at most x offline."
    public var holdingLimitText: String {
        localized("buy.holdingLimit", "The wallet may hold at most %@ offline.", MoneyText.text(holdingLimit, currency: currency))
    }
    /// The result line after a purchase (nil otherwise).
    public var boughtText: String? {
        guard case .bought(let bought) = phase else { return nil }
        let amount = MoneyText.text(bought.amount, currency: currency)
        let offline = bought.offlineSpendable.map { MoneyText.text($0, currency: currency) }
        let settled = bought.settled.map { MoneyText.text(signed: $0, currency: currency) }
        switch (offline, settled) {
        case (let offline?, let settled?):
            return localized("buy.boughtOfflineSettled", "Bought %1$@. Offline: %2$@. Settled: %3$@.", amount, offline, settled)
        case (let offline?, nil):
            return localized("buy.boughtOffline", "Bought %1$@. Offline: %2$@.", amount, offline)
        case (nil, let settled?):
            return localized("buy.boughtSettled", "Bought %1$@. Settled: %2$@.", amount, settled)
        case (nil, nil):
            return localized("buy.bought", "Bought %@.", amount)
        }
    }
    /// The error line after a failed purchase (nil otherwise).
    public var failureText: String? {
        guard case .failed(let error) = phase else { return nil }
        return ErrorText.message(error)
    }
}

extension SendModel {
    /// "Available balance" for the chosen method.
    public var availableText: String { MoneyText.text(available, currency: currency) }
    /// "Remaining: x" or "Insufficient balance: x short".
    public var balanceLineText: String { balanceLine.text(currency: currency) }
    /// Whether the balance line is the red "Insufficient balance".
    public var isInsufficient: Bool { if case .insufficient = balanceLine { true } else { false } }
    /// The usage bar's fill, 0…1 (drawing only; from the entry's integer permille).
    public var usage: Double { Double(amount.usagePermille(available: available)) / 1000 }
    /// The scanned request's line under the recipient field ("Request from Bob's Café: 12.00 EUR",
    /// "…: any amount"); nil when the recipient was typed.
    public var requestText: String? {
        guard case .request(let request)? = recipient else { return nil }
        let much = MoneyText.text(request.amount, currency: request.currency)
        switch (request.payeeNameShown, request.isOpenAmount) {
        case (let who?, false): return localized("send.requestFrom", "Request from %1$@: %2$@", who, much)
        case (let who?, true): return localized("send.requestFromAnyAmount", "Request from %@: any amount", who)
        case (nil, false): return localized("send.scannedRequest", "Request from a scanned request: %@", much)
        case (nil, true): return localized("send.scannedRequestAnyAmount", "Request from a scanned request: any amount")
        }
    }
    /// The progress or outcome line for the phase; nil while editing or confirming.
    public var phaseText: String? {
        switch phase {
        case .editing, .confirming: nil
        case .signing: localized("send.signing", "Signing the payment…")
        case .contactingServer: localized("send.contactingIssuer", "Sending through the issuer…")
        case .sending(let sent, let total):
            localized("send.sendingBytes", "Sending: %1$@ of %2$@ bytes", String(sent), String(total))
        case .waitingForReceipt:
            method == .qr
                ? localized(
                    "send.showCodesThenScanReceipt", "Show these codes to the payee, then scan the receipt on their screen.")
                : localized("send.waitingForReceipt", "Waiting for the payee's receipt…")
        case .paid(let amount): localized("send.paid", "Paid %@.", MoneyText.text(amount, currency: currency))
        case .failed(let message, _): message
        }
    }
    /// Bluetooth progress 0…1 while bytes go out (nil otherwise).
    public var sendingFraction: Double? {
        guard case .sending(let sent, let total) = phase, total > 0 else { return nil }
        return Double(min(sent, total)) / Double(total)
    }
    /// The scanned request being paid (what the Nearby devices sheet matches devices against);
    /// nil when the recipient is a typed account or missing.
    public var requestToPay: PaymentRequest? {
        if case .request(let request)? = recipient { request } else { nil }
    }
    /// Whether the screen waits for the payee's receipt to be scanned back (QR payments): the
    /// payment's codes are shown with a "Scan receipt" button.
    public var awaitsScannedReceipt: Bool { phase == .waitingForReceipt && method == .qr }
    /// Whether "Try again" is offered (a failure that resends the same signed payment).
    public var canTryAgain: Bool { if case .failed(_, true) = phase { true } else { false } }
    /// The picked device's line ("Paying Bob's iPhone, key 1a2b…"), nil when none was picked.
    public var nearbyPeerText: String? {
        nearbyPeer.map {
            $0.name.isEmpty
                ? localized("send.payingUnnamed", "Paying an unnamed device, key %@", $0.keyID)
                : localized("send.paying", "Paying %1$@, key %2$@", $0.name, $0.keyID)
        }
    }
}

extension SendMethod {
    /// The segmented control's title.
    public var title: String {
        switch self {
        case .qr: localized("send.method.qr", "Offline QR")
        case .bluetooth: localized("send.method.bluetooth", "Bluetooth")
        case .online: localized("send.method.online", "Online")
        }
    }
}

extension SendModel.Summary {
    public var amountText: String { MoneyText.text(amount, currency: currency) }
    public var amountSpoken: String { MoneyText.spoken(amount, currency: currency) }
    public var remainingText: String { MoneyText.text(remaining, currency: currency) }
}

extension ReceiveModel {
    /// The generated request's amount ("12.00 EUR", or "Any amount" for an open one).
    public var requestAmountText: String? {
        guard let request else { return nil }
        return request.isOpenAmount
            ? localized("receive.anyAmount", "Any amount") : MoneyText.text(request.amount, currency: request.currency)
    }
    /// When the shown request expires (the view formats the time).
    public var requestExpiry: Date? { request.map { Date(timeIntervalSince1970: TimeInterval($0.expiresAt)) } }
    /// "Part 2 of 5" under an animated code; nil for a single frame.
    public var frameText: String? {
        guard isAnimated else { return nil }
        return localized(
            "receive.frame", "Part %1$@ of %2$@", String(frameIndex % requestFrames.count + 1), String(requestFrames.count))
    }
    /// The nearby line: "Waiting for the payer…" and so on; nil before listening started.
    public var listeningText: String? {
        switch listening {
        case .idle: nil
        case .waiting: localized("receive.waiting", "Waiting for the payer nearby…")
        case .payerConnected: localized("receive.payerConnected", "Payer connected.")
        case .receiving(let bytes): localized("receive.receivingBytes", "Receiving the payment: %@ bytes", String(bytes))
        case .verified: localized("receive.verified", "Payment verified; sending the receipt…")
        case .refused(let message): localized("receive.refused", "The payment was refused: %@", message)
        case .receiptSent: localized("receive.receiptSent", "Receipt sent.")
        case .stopped(let message): localized("receive.stopped", "Stopped listening: %@", message)
        }
    }
    /// The request's code as text for Share / Copy: one frame per line, which the payer's
    /// "Enter code manually" reads back (`ScanAssembler.enter`). Nil before a request exists.
    public var shareText: String? { requestFrames.isEmpty ? nil : requestFrames.joined(separator: "\n") }
    /// "Received 12.00 EUR by QR" once a payment verified; nil before.
    public var incomingText: String? {
        guard let incoming else { return nil }
        let amount = MoneyText.text(incoming.amount, currency: incoming.currency)
        return incoming.method == .qr
            ? localized("receive.receivedByQR", "Received %@ by QR.", amount)
            : localized("receive.receivedNearby", "Received %@ nearby.", amount)
    }
    /// "From key 1a2b…" for the incoming payment, when its signer is known.
    public var payerText: String? { incoming?.payerKeyID.map { localized("receive.fromKey", "From key %@", "\($0)") } }
}

extension NearbyDevicesModel {
    /// The line for the search state ("Searching…", "No devices found…"); nil when devices are listed.
    public var stateText: String? {
        switch state {
        case .idle: localized("nearby.notSearching", "Not searching.")
        case .searching: localized("nearby.searching", "Searching for nearby wallets…")
        case .found: nil
        case .nothingFound:
            localized("nearby.nothingFound", "No wallets found nearby. Ask the payee to open Receive; the search goes on.")
        case .failed(let message): message
        }
    }
    /// The line for picking ("Asking Bob's iPhone for its request…"); nil when nothing was picked.
    public var pickText: String? {
        switch pick {
        case .none: nil
        case .fetchingRequest(let peer):
            peer.name.isEmpty
                ? localized("nearby.askingUnnamed", "Asking the device for its request…")
                : localized("nearby.asking", "Asking %@ for its request…", peer.name)
        case .handedToSend(let peer):
            peer.name.isEmpty
                ? localized("nearby.readyUnnamed", "Ready to pay the device by Bluetooth.")
                : localized("nearby.ready", "Ready to pay %@ by Bluetooth.", peer.name)
        case .failed(let message): message
        }
    }
    /// Whether "Search again" is offered: the search is not running, found nothing in time,
    /// or failed.
    public var canSearchAgain: Bool {
        switch state {
        case .idle, .nothingFound, .failed: true
        case .searching, .found: false
        }
    }
    /// Whether the spinner shows (searching and nothing found yet).
    public var isSearching: Bool { state == .searching }
    /// Whether a pick is being fetched (the list is disabled meanwhile).
    public var isPicking: Bool { if case .fetchingRequest = pick { true } else { false } }
}
