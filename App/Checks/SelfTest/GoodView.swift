// Self-test (scripts/check-app): a view that MUST type-check against the stand-in and the real
// WalletAppModels. It exercises the common surface, so a broken stand-in or a wrong build path
// fails here first, before the two "must fail" snippets are trusted.

import SwiftUI
import WalletAppModels

struct SelfTestGoodView: View {
    @Bindable var model: SendModel
    @FocusState private var focus: SendModel.Field?
    @Environment(\.dismiss) private var dismiss
    @Environment(\.scenePhase) private var scenePhase
    @State private var showsHelp = false

    var body: some View {
        NavigationStack {
            Form {
                Section("Amount") {
                    TextField("Amount", text: $model.amount.text)
                        .focused($focus, equals: .amount)
                        .keyboardType(.decimalPad)
                        .submitLabel(.next)
                        .onSubmit { model.focusNext() }
                        .accessibilityLabel("Amount")
                    HStack {
                        ForEach(AmountEntry.quickAmounts, id: \.self) { major in
                            Button("\(major)") { model.tapQuickAmount(major) }
                                .buttonStyle(.bordered)
                                .tint(model.amount.selectedQuickAmount == major ? .accentColor : .secondary)
                        }
                    }
                    TextField("Note", text: $model.note, axis: .vertical)
                        .focused($focus, equals: .description)
                        .submitLabel(.done)
                }
                Section {
                    Text(model.amountText).monospacedDigit()
                    if model.canSend {
                        Label("Ready", systemImage: "checkmark.circle")
                    } else {
                        ForEach(Array(model.missing.enumerated()), id: \.offset) { _, requirement in
                            Text(requirement.description).foregroundStyle(.secondary)
                        }
                    }
                } footer: {
                    Text(verbatim: model.sendButtonTitle)
                }
            }
            .navigationTitle("Send")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { dismiss() }
                }
                ToolbarItemGroup(placement: .keyboard) {
                    Spacer()
                    Button("Done") { focus = nil }
                }
            }
            .task { await model.send() }
            .onChange(of: model.focus.focused, initial: true) { _, newValue in focus = newValue }
            .onChange(of: focus) { _, newValue in model.focus.focused = newValue }
            .alert("Help", isPresented: $showsHelp) {
                Button("OK", role: .cancel) {}
            } message: {
                Text("Scan the payee's request.")
            }
            .disabled(!model.canSend)
        }
    }
}
