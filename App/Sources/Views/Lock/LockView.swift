import SwiftUI
import WalletAppModels

/// The lock screen over the wallet while `LockModel.isLocked`: it asks for Face ID / Touch ID
/// (or the device passcode, which the app's gate allows as fallback) as soon as it appears, and
/// offers the button again after a failure or cancel; where the wallet has a passphrase, it can
/// be typed instead (the model's one-field form: Return unlocks). Binds `LockModel`.
struct LockView: View {
    @Bindable var model: LockModel
    @FocusState private var focused: LockModel.Field?
    @Environment(\.scenePhase) private var scenePhase

    init(model: LockModel) {
        self.model = model
    }

    var body: some View {
        ScrollView {
            VStack(spacing: 24) {
                Image(systemName: "lock.fill")
                    .font(.system(.largeTitle))
                    .imageScale(.large)
                    .foregroundStyle(.tint)
                    .accessibilityHidden(true)
                    .padding(.top, 48)
                Text("Offline Wallet is locked")
                    .font(.title2.weight(.semibold))
                    .multilineTextAlignment(.center)
                    .accessibilityAddTraits(.isHeader)
                if let message = model.message {
                    Text(message.description)
                        .font(.callout)
                        .foregroundStyle(.red)
                        .multilineTextAlignment(.center)
                }
                Button {
                    Task { await model.unlock() }
                } label: {
                    Label("Unlock with Face ID or passcode", systemImage: "faceid")
                        .frame(maxWidth: .infinity)
                }
                .buttonStyle(.borderedProminent)
                .controlSize(.large)
                .disabled(model.state == .authenticating)
                if model.state == .authenticating {
                    ProgressView("Waiting for Face ID…")
                }
                if model.hasFallback {
                    VStack(alignment: .leading, spacing: 12) {
                        FormTextField(
                            "Wallet passphrase", text: $model.passphrase, form: model, field: .passphrase, focused: $focused,
                            isSecure: true
                        )
                        .textContentType(.password)
                        Button("Unlock with passphrase") { model.submit() }
                            .disabled(model.passphrase.isEmpty || model.state == .authenticating)
                    }
                    .padding(.top, 16)
                }
            }
            .padding()
        }
        .background(.background)
        .syncsFocus($focused, with: $model.focus.focused)
        .formKeyboardToolbar(model)
        .dismissesKeyboardOnTap { model.focus.clearFocus() }
        // Face ID at once, but only while the app is active (a prompt from the background
        // fails); once per lock: after a failure or cancel the button asks.
        .task(id: scenePhase) {
            if scenePhase == .active { await model.unlockOnShow() }
        }
    }
}
