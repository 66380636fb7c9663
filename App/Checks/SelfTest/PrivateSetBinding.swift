// Self-test (scripts/check-app): MUST FAIL to type-check — a binding to a `private(set)` model
// property (`SendModel.phase`). SwiftUI's @Bindable only binds settable properties.

import SwiftUI
import WalletAppModels

struct SelfTestPrivateSetBindingView: View {
    @Bindable var model: SendModel

    var body: some View {
        PhaseEditor(phase: $model.phase)
    }
}

private struct PhaseEditor: View {
    @Binding var phase: SendPhase

    var body: some View {
        Text(verbatim: "\(phase)")
    }
}
