import Foundation
import NearbySession
import Observation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

/// The sheets the app opens, each made on the app's one wallet and session, so what a sheet
/// does (a purchase, a payment) shows on home through the wallet's observation, and what
/// Settings saves is what the next sync reads.
extension AppModel {
    /// The Buy sheet, from the balance home shows (read from the wallet before the first
    /// snapshot arrived); nil without a session (log in first).
    public func makeBuy(locale: Locale = .current) -> BuyModel? {
        guard let session else { return nil }
        guard let balance = home?.snapshot?.balance ?? (try? session.wallet.balance()) else { return nil }
        return BuyModel(session: session, balance: balance, locale: locale)
    }

    /// The Send sheet: paid from this wallet (offline) or this session (online), the balances
    /// as home shows them; nearby payments dial the device picked on `makeNearbyDevices()`,
    /// else the payee the scanned request's Bluetooth hint names (through the app's browser),
    /// else `dialer`. Nil before the wallet is open.
    public func makeSend(dialer: (any LinkDialer)? = nil, locale: Locale = .current) -> SendModel? {
        guard let wallet, let currency = currency else { return nil }
        let model = SendModel(
            currency: currency, offlineSpendable: home?.offlineSpendable ?? ((try? wallet.wallet.balance())?.spendable ?? 0),
            settled: UInt64(max(0, home?.settled ?? 0)), clock: clockForScreens, locale: locale)
        model.services = SendServices(
            wallet: wallet.wallet, session: session, dialer: dialer, sessionOptions: sessionOptions, nearbyBrowser: nearbyBrowser)
        if let home { Self.follow(home, into: model) }
        return model
    }

    /// Keeps an open Send sheet's balances equal to home's (money received or bought while the
    /// sheet is open counts; the "Remaining" line and the amount's maximum follow), for as long
    /// as both exist. Only while the person is still editing: once a payment is confirmed or
    /// signed, the sheet keeps the numbers it was confirmed with.
    static func follow(_ home: HomeModel, into model: SendModel) {
        withObservationTracking {
            _ = home.offlineSpendable
            _ = home.settled
        } onChange: { [weak home, weak model] in
            // Called before the change is stored: read the new values on the next turn.
            Task { @MainActor in
                guard let home, let model else { return }
                if model.phase == .editing {
                    model.offlineSpendable = home.offlineSpendable
                    model.settled = UInt64(max(0, home.settled ?? 0))
                }
                follow(home, into: model)
            }
        }
    }

    /// The Receive sheet, its requests carrying `hints` — or, when none are given, a fresh
    /// endpoint of the app's `NearbyAdvertiser` per request (a Bluetooth LE session service;
    /// `ReceiveModel.listenNearby()` serves it) —, valid for `expiresIn` seconds and drawn as
    /// QR frames of at most `frameBytes`. Nil before the wallet is open.
    public func makeReceive(
        hints: [TransportHint] = [], payeeName: String = "", expiresIn: UInt64 = 600, frameBytes: Int = 600,
        locale: Locale = .current
    ) -> ReceiveModel? {
        guard let wallet, let currency else { return nil }
        return ReceiveModel(
            wallet: wallet.wallet, currency: currency, payeeName: payeeName, hints: hints, sessionOptions: sessionOptions,
            expiresIn: expiresIn, frameBytes: frameBytes, locale: locale, advertiser: hints.isEmpty ? nearbyAdvertiser : nil)
    }

    /// The Scan sheet.
    public func makeScan() -> ScanAssembler { ScanAssembler() }

    /// The Nearby devices sheet on the app's browser, matched against `request` when one was
    /// scanned. Nil when the device has no nearby transport.
    public func makeNearbyDevices(request: PaymentRequest? = nil, timeout: UInt64 = 15) -> NearbyDevicesModel? {
        guard let nearbyBrowser else { return nil }
        return NearbyDevicesModel(browser: nearbyBrowser, clock: clockForScreens, timeout: timeout, request: request)
    }

    /// The wallet's currency (from home's snapshot, else its installed limits).
    var currency: Currency? { home?.currency ?? (try? wallet?.wallet.limits().currency) ?? nil }
}
