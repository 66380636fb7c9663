import SwiftUI
import WalletAppModels

/// Fraud and expiry alerts (`AppModel.alerts`, oldest first) as system alerts, one at a time:
/// the model's title and message (an expiring alert adds its expiry time in the person's
/// locale), "Sync now" where syncing is what helps, and OK. Apply once, at the root:
/// `.walletAlerts(app)`.
///
/// The buttons and the message are written straight into the alert's builders: a system alert
/// draws only `Button`s and `Text` found there, not views that wrap them.
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
            if alert.suggestsSync {
                Button("Sync now") {
                    app.dismiss(alert)
                    Task { await app.sync() }
                }
            }
            Button("OK", role: .cancel) { app.dismiss(alert) }
        } message: { alert in
            Self.message(alert)
        }
    }

    /// The model's message, and the first expiry time when there is one.
    static func message(_ alert: WalletAlert) -> Text {
        Text(alert.message(timeZone: .current))
    }
}

extension View {
    /// Shows the app's fraud and expiry alerts (see `WalletAlertsModifier`).
    func walletAlerts(_ app: AppModel) -> some View {
        modifier(WalletAlertsModifier(app: app))
    }
}
