#if canImport(UserNotifications)
import Foundation
import OfflineNotes
import UserNotifications
import WalletAppModels
import WalletFlows

/// Local notifications (UNUserNotificationCenter) for what happens while the person is not
/// looking: the models' `WalletAlert`s (double spend caught, notes about to expire, notes
/// expired), and what a background sync did on its own (an auto-recharge bought notes, or could
/// not). The words are the models' (`WalletAlert.title` / `.message`), so the notification says
/// what the in-app alert says.
///
/// Each notification's identifier is the alert's `id`: posting the same alert again replaces
/// the one on screen instead of stacking a copy.
struct LocalNotifier: Notifier {
    /// Asks for permission to alert, badge and sound. iOS shows the prompt only the first time
    /// and answers from the stored decision afterwards, so calling this at every launch asks
    /// once. Called once a wallet is open (not on the first onboarding screen, where the
    /// person has no reason yet to say yes). A refusal is fine: alerts still show in the app.
    func requestPermission() async {
        _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .badge, .sound])
    }

    func post(_ alert: WalletAlert) async {
        var body = alert.message
        if let expiry = alert.expiryDate {
            body += " They expire \(expiry.formatted(date: .abbreviated, time: .shortened))."
        }
        var badge: Int?
        if case .expired(let count, _, _) = alert, count > 0 { badge = count }
        await show(id: alert.id, title: alert.title, body: body, badge: badge)
    }

    /// After a sync iOS ran in the background: the auto-recharge it made, or why it could not
    /// make one (`SyncReport.warnings` carries only auto-recharge problems). In the foreground
    /// the home screen shows both, so the app calls this for background syncs only.
    func postBackgroundSync(_ report: SyncReport) async {
        let currency = report.balance.currency
        if report.recharged > 0 {
            await show(
                id: "recharge:\(report.syncedAt)", title: "Auto-recharge",
                body:
                    "Bought \(Amount.format(report.recharged, currency: currency)) \(currency) of notes, ready to spend offline.",
                badge: nil)
        }
        for (index, warning) in report.warnings.enumerated() {
            await show(
                id: "recharge-failed:\(report.syncedAt):\(index)", title: "Auto-recharge failed", body: warning, badge: nil)
        }
    }

    /// A payment received while the app was in the background (over Bluetooth, whose
    /// background mode keeps the wallet answering).
    func postPaymentReceived(amount: UInt64, currency: Currency) async {
        await show(
            id: "received:\(UUID().uuidString)", title: "Payment received",
            body: "You received \(Amount.format(amount, currency: currency)) \(currency).", badge: nil)
    }

    private func show(id: String, title: String, body: String, badge: Int?) async {
        let content = UNMutableNotificationContent()
        content.title = title
        content.body = body
        content.sound = .default
        if let badge { content.badge = NSNumber(value: badge) }
        // No trigger: shown now.
        let request = UNNotificationRequest(identifier: id, content: content, trigger: nil)
        // Not allowed, or the system refused: the in-app alert (AppModel.alerts) still shows it.
        try? await UNUserNotificationCenter.current().add(request)
    }
}
#endif
