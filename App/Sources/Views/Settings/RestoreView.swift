import SwiftUI
import WalletAppModels

/// Settings → Restore: pick the backup file (the system's document picker), type its
/// passphrase, restore. The backup becomes this phone's wallet under a new key and one sync
/// exchanges its notes; the progress and the result (or why nothing changed) show below.
/// Binds `RestoreModel`.
struct RestoreView: View {
    @Bindable var model: RestoreModel
    @Environment(\.dismiss) private var dismiss
    @FocusState private var focused: RestoreModel.Field?
    @State private var picking = false

    var body: some View {
        Form {
            Section {
                Button {
                    picking = true
                } label: {
                    Label(model.fileName ?? "Choose the backup file…", systemImage: "doc")
                }
                .accessibilityLabel(model.fileName.map { "Backup file \($0). Choose another" } ?? "Choose the backup file")
            } header: {
                Text("Backup file")
            } footer: {
                Text("Backups made on a phone are in Files → On My iPhone → Offline Wallet, unless you moved them.")
            }
            Section {
                FormTextField(
                    "Backup passphrase", text: $model.passphrase, form: model, field: .passphrase, focused: $focused,
                    isSecure: true
                )
                .textContentType(.password)
            } header: {
                Text("Passphrase")
            }
            Section {
                Button {
                    model.submit()
                } label: {
                    BusyLabel("Restore", systemImage: "arrow.counterclockwise", isBusy: model.isBusy)
                }
                .disabled(!model.canRestore)
                .accessibilityHint("Makes the backup this phone's wallet; only an empty wallet is replaced")
                if let status = model.statusText {
                    StatusLine(text: status, isError: model.statusIsError)
                }
            } footer: {
                Text("Only an empty wallet is replaced. The old phone's key is never used again.")
            }
        }
        .disabled(model.isBusy)
        .navigationTitle("Restore")
        .navigationBarTitleDisplayMode(.inline)
        .toolbar {
            ToolbarItem(placement: .cancellationAction) {
                Button("Close") { dismiss() }
                    .disabled(model.isBusy)
            }
        }
        .fileImporter(isPresented: $picking, allowedContentTypes: [.data]) { model.chooseFile($0) }
        .syncsFocus($focused, with: $model.focus.focused)
        .formKeyboardToolbar(model)
        .dismissesKeyboardOnTap { model.focus.clearFocus() }
        .onAppear { model.appear() }
    }
}
