import SwiftUI
import WalletAppModels

/// The Buy sheet: the person chooses how much of the settled balance becomes offline notes.
/// The amount field is focused with the decimal pad as the sheet opens; quick amounts replace
/// the amount; the limit and what can still be bought are shown. Binds `BuyModel`.
struct BuyView: View {
    @Bindable var model: BuyModel
    @FocusState private var focused: BuyModel.Field?
    @Environment(\.dismiss) private var dismiss

    init(model: BuyModel) {
        self.model = model
    }

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 16) {
                    CurrencyField(
                        "Amount to buy", text: $model.amount.text, currencyCode: "\(model.currency)",
                        validity: model.amount.validity, focus: $focused, field: .amount,
                        isLocked: model.phase == .buying)
                    QuickAmountButtons(
                        selected: model.amount.selectedQuickAmount, currencyCode: "\(model.currency)",
                        isDisabled: model.phase == .buying
                    ) { model.applyQuickAmount($0) }
                    Text(model.riskBudgetLeftText)
                        .font(.callout)
                    Text(model.holdingLimitText)
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                    if model.phase == .buying {
                        ProgressView("Buying…")
                    }
                    if let bought = model.boughtText {
                        Label(bought, systemImage: "checkmark.circle.fill")
                            .foregroundStyle(.green)
                    }
                    if let failure = model.failureText {
                        Label(failure, systemImage: "exclamationmark.triangle.fill")
                            .foregroundStyle(.red)
                    }
                    buttons
                }
                .padding()
            }
            .navigationTitle("Buy notes")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                        .disabled(model.phase == .buying)
                }
            }
            .formKeyboardToolbar(model)
            // Inside the navigation stack, with the fields it exempts: the named coordinate
            // space and the fields' frames need not cross the stack's hosting boundary.
            .dismissesKeyboardOnTap { model.focus.clearFocus() }
        }
        .syncsFocus($focused, with: $model.focus.focused)
        .interactiveDismissDisabled(model.phase == .buying)
        .onAppear { model.appear() }
    }

    @ViewBuilder
    private var buttons: some View {
        switch model.phase {
        case .editing, .buying:
            Button {
                Task { await model.buy() }
            } label: {
                Text("Buy").frame(maxWidth: .infinity)
            }
            .buttonStyle(.borderedProminent)
            .controlSize(.large)
            .disabled(!model.canBuy)
            .accessibilityLabel(ViewText.buy(model.amount.text, currency: model.currency.code))
            .accessibilityHint("Turns this much of the settled balance into offline notes")
        case .bought, .failed:
            AdaptiveStack(stackedAlignment: .center) {
                Button("Buy more") { model.edit() }
                    .buttonStyle(.bordered)
                Spacer()
                Button("Done") { dismiss() }
                    .buttonStyle(.borderedProminent)
            }
            .controlSize(.large)
        }
    }
}
