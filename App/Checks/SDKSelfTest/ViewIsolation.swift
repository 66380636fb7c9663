// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// A nonisolated helper of a view touches main-actor model state (View is @MainActor from the
// iOS 18 SDK on, its models are @MainActor).
// expect: main actor-isolated
import SwiftUI
import WalletAppModels

struct PlantedIsolationView: View {
    var model: SendModel

    var body: some View { Text("x") }

    nonisolated func reset() {
        model.focus.clearFocus()
    }
}
