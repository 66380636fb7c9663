import SwiftUI
import WalletAppModels

/// Settings → Back up: the passphrase twice (passphrase → confirmation → Back up), the
/// command line's passphrase rule and its message as the person types, then the encrypted file
/// written by the app's `BackupDestination` (Files → On My iPhone → Offline Wallet), with the
/// progress and the outcome. Binds `BackupModel`.
struct BackupView: View {
    @Bindable var model: BackupModel
    @Environment(\.dismiss) private var dismiss
    @FocusState private var focused: BackupModel.Field?

    var body: some View {
        Form {
            Section {
                FormTextField(
                    "Backup passphrase", text: $model.passphrase, form: model, field: .passphrase, focused: $focused,
                    isSecure: true
                )
                .textContentType(.newPassword)
                FormTextField(
                    "Passphrase again", text: $model.confirmation, form: model, field: .confirmation, focused: $focused,
                    isSecure: true
                )
                .textContentType(.newPassword)
                if let problem = model.problem {
                    Text(problem)
                        .font(.footnote)
                        .foregroundStyle(.red)
                }
            } header: {
                Text("Passphrase")
            } footer: {
                Text(BackupModel.ruleText)
            }
            .disabled(model.isWorking)
            Section {
                Button {
                    model.submit()
                } label: {
                    BusyLabel("Back up", systemImage: "lock.doc", isBusy: model.isWorking)
                }
                .disabled(!model.canBackUp)
                .accessibilityHint("Writes the encrypted backup to Files, On My iPhone, Offline Wallet")
                if let status = model.statusText {
                    StatusLine(text: status, isError: model.statusIsError)
                }
            }
        }
        .navigationTitle("Back up")
        .navigationBarTitleDisplayMode(.inline)
        .toolbar {
            ToolbarItem(placement: .cancellationAction) {
                Button("Close") { dismiss() }
            }
        }
        .syncsFocus($focused, with: $model.focus.focused)
        .formKeyboardToolbar(model)
        .dismissesKeyboardOnTap { model.focus.clearFocus() }
        .onAppear { model.appear() }
    }
}
