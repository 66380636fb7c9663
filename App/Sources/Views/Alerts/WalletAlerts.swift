import SwiftUI
import WalletAppModels

/// Fraud and expiry alerts (`AppModel.alerts`, oldest first) as system alerts, one at a time:
/// the model's title and message (an expiring alert adds its expiry time in the person's
/// locale), OK to dismiss it, and "Sync now" where syncing is what helps. Apply once, at the
/// root: `.walletAlerts(app)`.
struct WalletAlertsModifier: ViewModifier {
    let app: AppModel

    func body(content: Content) -> some View {
        content.alert(
            app.alerts.first?.title ?? "",
            // Dismissal goes through the buttons (each dismisses its own alert); the system
            // setting this false after a button must not dismiss the next one.
            isPresented: Binding(get: { !app.alerts.isEmpty }, set: { _ in }),
            presenting: app.alerts.first
        ) { alert in
            WalletAlertActions(alert: alert, app: app)
        } message: { alert in
            WalletAlertMessage(alert: alert)
        }
    }
}

/// The alert's buttons: "Sync now" for expiry (a sync refreshes or refunds the notes), and OK.
struct WalletAlertActions: View {
    let alert: WalletAlert
    let app: AppModel

    var body: some View {
        if alert.suggestsSync {
            Button("Sync now") {
                app.dismiss(alert)
                Task { await app.sync() }
            }
        }
        Button("OK", role: .cancel) { app.dismiss(alert) }
    }
}

/// The alert's text: the model's message, and the expiry time when there is one.
struct WalletAlertMessage: View {
    let alert: WalletAlert

    var body: some View {
        if let expiry = alert.expiryDate {
            Text(alert.message) + Text(" First expiry: ") + Text(expiry, style: .time) + Text(".")
        } else {
            Text(alert.message)
        }
    }
}

extension View {
    /// Shows the app's fraud and expiry alerts (see `WalletAlertsModifier`).
    func walletAlerts(_ app: AppModel) -> some View {
        modifier(WalletAlertsModifier(app: app))
    }
}
