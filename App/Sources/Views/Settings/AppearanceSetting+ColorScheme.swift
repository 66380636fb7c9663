import SwiftUI
import WalletAppModels

extension AppearanceSetting {
    /// For `.preferredColorScheme(_:)` at the root (`app.settingsModel?.appearance`, or
    /// `AppearanceSetting.load(from: app.settings)` before there is a session): nil follows
    /// the system's light/dark setting.
    var colorScheme: ColorScheme? {
        switch self {
        case .system: nil
        case .light: .light
        case .dark: .dark
        }
    }
}
