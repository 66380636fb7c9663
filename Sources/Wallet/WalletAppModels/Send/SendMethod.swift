import WalletCore

/// How a payment leaves the phone; the Send button is labelled by it.
public enum SendMethod: CaseIterable, Hashable, Sendable {
    /// Offline: the payment shown as QR codes, the receipt scanned back.
    case qr
    /// Offline: a nearby session (Bluetooth LE in the app; TCP or the simulated link here).
    case bluetooth
    /// Online: from the settled account balance to another account; no notes move.
    case online

    /// Whether notes move offline (from offline spendable) rather than the account (settled).
    public var isOffline: Bool { self != .online }

    /// The Send button's label.
    public var buttonTitle: String {
        switch self {
        case .qr: localized("send.viaQR", "Via QR")
        case .bluetooth: localized("send.viaBluetooth", "Via Bluetooth")
        case .online: localized("send.viaInternet", "Via Internet")
        }
    }
}

extension SendModel {
    /// What the wallet's history records for a nearby payment made or received through the
    /// app's models: the app's one nearby transport is Bluetooth LE (the command line, which
    /// runs the flows over TCP, records `.tcp`).
    public nonisolated static let nearbyMethod: PaymentMethod = .bluetooth
}
