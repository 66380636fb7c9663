import SwiftUI
import WalletAppModels

/// Onboarding: server → account (register or log in) → wallet passphrase (optional, typed
/// twice) → done. Each step shows what it is doing (`activity`) and what went wrong on it
/// (`error`, per-field `validationMessages`); Return walks the step's fields and the last one
/// submits the step (`OnboardingModel.focus` is rebuilt for each step).
///
/// Finishing: the done step's "Open my wallet" calls `app.finishOnboarding(model)`, which
/// starts `AppModel` on the wallet and login onboarding made (`OnboardingModel.result`); the
/// root view then shows the wallet because `app.wallet` is set. So the composition root makes
/// the `OnboardingModel` (wallet directory, credential and flow-state stores) and shows
/// `OnboardingView(model: onboarding, app: app)` while `app.wallet == nil`.
///
/// Logging in again (after Settings → Log out, or another server): the same view over
/// `app.makeLogIn(credentials:flowState:)` — server and account only, the saved server and
/// email filled in, the phone's wallet and notes kept; "Open my wallet" starts the new login.
/// Offer it (a "Log in" button on the not-logged-in screen) while `app.needsLogIn`.
struct OnboardingView: View {
    @Bindable var model: OnboardingModel
    let app: AppModel
    @FocusState private var focused: OnboardingModel.Field?

    init(model: OnboardingModel, app: AppModel) {
        self.model = model
        self.app = app
    }

    var body: some View {
        NavigationStack {
            Form {
                switch model.step {
                case .server: ServerStep(model: model, focused: $focused)
                case .account: AccountStep(model: model, focused: $focused)
                case .wallet: WalletStep(model: model, focused: $focused)
                case .done: DoneStep(model: model, app: app)
                }
                if model.step != .done {
                    Section {
                        Button {
                            model.submit()
                        } label: {
                            HStack {
                                Text(model.step == .wallet ? "Create wallet" : "Continue")
                                    .frame(maxWidth: .infinity, alignment: .leading)
                                if model.activity != nil { ProgressView() }
                            }
                        }
                        .disabled(!model.canSubmit)
                        if let activity = model.activity {
                            Text(activity.label)
                                .font(.footnote)
                                .foregroundStyle(.secondary)
                        }
                        if let error = model.error {
                            Label(error.description, systemImage: "exclamationmark.circle")
                                .font(.footnote)
                                .foregroundStyle(.red)
                        }
                    }
                }
            }
            .navigationTitle(model.isLoggingInAgain ? "Log in" : "Welcome")
            .toolbar {
                if model.step == .account || model.step == .wallet {
                    ToolbarItem(placement: .cancellationAction) {
                        Button("Back") { model.back() }
                            .disabled(model.activity != nil)
                    }
                }
            }
            .disabled(model.activity != nil)
            .syncsFocus($focused, with: $model.focus.focused)
            .formKeyboardToolbar(model)
            .dismissesKeyboardOnTap { model.focus.clearFocus() }
        }
        .onAppear { model.appear() }
    }
}

/// A field's validation message under it, in red; nothing when it is fine.
private struct FieldMessage: View {
    let text: String?

    var body: some View {
        if let text {
            Text(text)
                .font(.footnote)
                .foregroundStyle(.red)
        }
    }
}

private struct ServerStep: View {
    @Bindable var model: OnboardingModel
    let focused: FocusState<OnboardingModel.Field?>.Binding

    var body: some View {
        Section {
            FormTextField(
                "Server address", prompt: "https://issuer.example.com", text: $model.server, form: model, field: .server,
                focused: focused
            )
            .keyboardType(.URL)
            .textContentType(.URL)
            .textInputAutocapitalization(.never)
            .autocorrectionDisabled()
            FieldMessage(text: model.validationMessages[.server])
        } header: {
            Text(model.stepCaption)
        } footer: {
            Text("The issuer that sells and redeems your notes. Your bank or operator gives you this address.")
        }
    }
}

private struct AccountStep: View {
    @Bindable var model: OnboardingModel
    let focused: FocusState<OnboardingModel.Field?>.Binding

    var body: some View {
        Section {
            Picker("Account", selection: $model.mode) {
                Text("Register").tag(OnboardingModel.Mode.register)
                Text("Log in").tag(OnboardingModel.Mode.logIn)
            }
            .pickerStyle(.segmented)
            .accessibilityLabel("Register a new account or log in")
            FormTextField("Email", prompt: "name@example.com", text: $model.email, form: model, field: .email, focused: focused)
                .keyboardType(.emailAddress)
                .textContentType(.username)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
            FieldMessage(text: model.validationMessages[.email])
            FormTextField("Password", text: $model.password, form: model, field: .password, focused: focused, isSecure: true)
                .textContentType(model.mode == .register ? .newPassword : .password)
            FieldMessage(text: model.validationMessages[.password])
        } header: {
            Text(model.stepCaption)
        } footer: {
            Text(ViewText.minimumPassword(OnboardingModel.minimumPasswordLength))
        }
    }
}

private struct WalletStep: View {
    @Bindable var model: OnboardingModel
    let focused: FocusState<OnboardingModel.Field?>.Binding

    var body: some View {
        Section {
            FormTextField(
                "Wallet passphrase (optional)", text: $model.passphrase, form: model, field: .passphrase, focused: focused,
                isSecure: true
            )
            .textContentType(.newPassword)
            FieldMessage(text: model.validationMessages[.passphrase])
            FormTextField(
                "Passphrase again", text: $model.passphraseConfirmation, form: model, field: .passphraseConfirmation,
                focused: focused, isSecure: true
            )
            .textContentType(.newPassword)
            FieldMessage(text: model.validationMessages[.passphraseConfirmation])
        } header: {
            Text(model.stepCaption)
        } footer: {
            Text(ViewText.passphraseRule(OnboardingModel.minimumPassphraseLength))
        }
    }
}

private struct DoneStep: View {
    let model: OnboardingModel
    let app: AppModel

    var body: some View {
        Section {
            Label(model.isLoggingInAgain ? "You are logged in" : "Your wallet is ready", systemImage: "checkmark.seal.fill")
                .font(.title3.weight(.semibold))
                .foregroundStyle(.green)
            Text("Buy notes while online, then pay and receive without a network, by QR code or Bluetooth.")
            Button {
                app.finishOnboarding(model)
            } label: {
                Text("Open my wallet")
                    .frame(maxWidth: .infinity)
            }
            .buttonStyle(.borderedProminent)
        }
    }
}
