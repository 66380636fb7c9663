import Foundation
import Observation
import OfflineNotes
import WalletCore

/// The QR Code tab: Scan / Generate, and the last payment request scanned there with its amount
/// and age, which "Send payment" opens on Send prefilled (an empty action in the original
/// product). One per app (`AppModel.makeQRCodeTab()`), so the last request survives tab changes.
@Observable
@MainActor
public final class QRCodeTabModel {
    /// The last request scanned on this tab; nil before any (or after `clear()`).
    public private(set) var lastRequest: PaymentRequest?
    /// When it was scanned.
    public private(set) var scannedAt: Timestamp?

    private let clock: any AppClock

    public init(clock: any AppClock = SystemClock()) {
        self.clock = clock
    }

    /// A request came out of the scanner: it becomes the last one.
    public func scanned(_ request: PaymentRequest) {
        lastRequest = request
        scannedAt = clock.now()
    }

    /// Forgets the last request (after it was paid, or "Clear").
    public func clear() {
        lastRequest = nil
        scannedAt = nil
    }

    /// Who asks: the payee's name, or "Scanned request" when it has none.
    public var payeeText: String? {
        lastRequest?.payeeTitle
    }

    /// "12.00 EUR", or "Any amount" for an open request.
    public var amountText: String? {
        lastRequest.map {
            $0.isOpenAmount ? localized("qrTab.anyAmount", "Any amount") : MoneyText.text($0.amount, currency: $0.currency)
        }
    }

    /// "Scanned 5 min ago" against the clock now (the view redraws it on a timer).
    public var ageText: String? {
        guard let scannedAt else { return nil }
        let now = clock.now()
        return localized("qrTab.scannedAgo", "Scanned %@", RelativeTime.ago(now > scannedAt ? now - scannedAt : 0))
    }

    /// Whether the request has expired (Send payment is then disabled: ask for a new one).
    public var isExpired: Bool { lastRequest.map { $0.expiresAt <= clock.now() } ?? false }
}

extension AppModel {
    /// The QR Code tab's model, on the app's clock.
    public func makeQRCodeTab() -> QRCodeTabModel { QRCodeTabModel(clock: clockForScreens) }
}

extension AppModel {
    /// Send prefilled with a scanned request (a scan result anywhere, the QR Code tab's "Send
    /// payment"): the amount filled and locked when the request fixes it, the method an offline
    /// one. Nil before the wallet is open.
    public func makeSend(paying request: PaymentRequest, locale: Locale = .current) -> SendModel? {
        guard let send = makeSend(locale: locale) else { return nil }
        send.useRequest(request)
        return send
    }

    /// Whether a wallet is open (after `open` or onboarding): the root shows the tabs, else
    /// onboarding.
    public var isWalletOpen: Bool { wallet != nil }

    /// The colour scheme to draw with: the Settings screen's choice while it exists (so a
    /// change shows at once), else the saved one.
    public var appearance: AppearanceSetting {
        settingsModel?.appearance ?? AppearanceSetting.load(from: settings)
    }
}
