import SwiftUI
import WalletAppModels

/// The Withdraw sheet: money from the settled balance to an address on the blockchain. Editing: the
/// amount with its validity border and quick amounts (they replace it), the available balance
/// and "Remaining" / "Insufficient balance", the address with what the wallet checks, the summary
/// card, the checklist of what is still missing, and Withdraw. Then the confirmation, the
/// progress while the issuer pays out (pending → sent → paid or refused), and the result: paid
/// with its transaction hash, or refused with the reason and the money back on the account.
/// Below, the account's recent withdrawals with their payout status. Binds `WithdrawModel`.
///
/// Focus: amount → address → Withdraw; the amount is focused with the decimal pad as the sheet
/// opens; a quick amount replaces the amount and moves on to the address.
///
/// No scan button: the scanner hands over plain text, and the model offers no reading of an
/// `ethereum:` URI into an address, so the address is typed or pasted.
struct WithdrawView: View {
    @Bindable var model: WithdrawModel

    @FocusState private var focused: WithdrawModel.Field?
    /// The withdrawal and its tracking, started by the confirmation's Withdraw; cancelled when
    /// the sheet closes (the issuer's payout goes on; only the polling stops).
    @State private var work: Task<Void, Never>?
    @Environment(\.dismiss) private var dismiss

    init(model: WithdrawModel) {
        self.model = model
    }

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 18) {
                    if let problem = model.loadError {
                        // This issuer has no escrow settlement, or it cannot be reached now.
                        Label(problem, systemImage: "exclamationmark.triangle.fill")
                            .font(.footnote)
                            .foregroundStyle(.orange)
                            .fixedSize(horizontal: false, vertical: true)
                    }
                    switch model.phase {
                    case .editing:
                        form
                    case .confirming(let summary):
                        confirmation(summary)
                    default:
                        WithdrawProgress(model: model, onEdit: { model.edit() }, onDone: { dismiss() })
                    }
                    RecentWithdrawals(model: model)
                }
                .padding()
            }
            .navigationTitle("Withdraw")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    // Closing while the payout is tracked is fine (it goes on at the issuer);
                    // only the request itself is waited for.
                    Button("Close") { dismiss() }
                        .disabled(model.phase == .submitting)
                }
            }
            .formKeyboardToolbar(model)
            // Inside the navigation stack, with the fields it exempts (as on the other sheets).
            .dismissesKeyboardOnTap { model.focus.clearFocus() }
            .refreshable { await model.load() }
        }
        .syncsFocus($focused, with: $model.focus.focused)
        .interactiveDismissDisabled(model.phase == .submitting)
        .onAppear { model.appear() }
        .task { await model.load() }
        .onDisappear { work?.cancel() }
    }

    // MARK: Editing

    @ViewBuilder
    private var form: some View {
        VStack(alignment: .leading, spacing: 8) {
            CurrencyField(
                "Amount", text: $model.amount.text, currencyCode: "\(model.currency)", validity: model.amount.validity,
                focus: $focused, field: .amount)
            QuickAmountButtons(selected: model.amount.selectedQuickAmount, currencyCode: "\(model.currency)") {
                model.tapQuickAmount($0)
            }
        }

        VStack(alignment: .leading, spacing: 4) {
            Text(model.availableText)
                .font(.subheadline.monospacedDigit())
            Text(model.balanceLineText)
                .font(.footnote.monospacedDigit())
                .foregroundStyle(isShort ? Color.red : Color.secondary)
        }
        .accessibilityElement(children: .combine)

        VStack(alignment: .leading, spacing: 4) {
            FormTextField(
                "Ethereum address", prompt: "0x…", text: $model.address, form: model, field: .address, focused: $focused
            )
            .textInputAutocapitalization(.never)
            .autocorrectionDisabled()
            .keyboardType(.asciiCapable)
            .font(.body.monospaced())
            Text(model.addressText)
                .font(.footnote)
                .foregroundStyle(model.addressError == nil ? Color.secondary : Color.red)
                .fixedSize(horizontal: false, vertical: true)
        }

        if let summary = model.summary {
            WithdrawSummaryCard(summary: summary)
        }

        MissingChecklist(lines: model.missing.map(\.description))

        Button {
            model.submit()
        } label: {
            Text("Withdraw").frame(maxWidth: .infinity)
        }
        .buttonStyle(.borderedProminent)
        .controlSize(.large)
        .disabled(!model.canWithdraw)
        .accessibilityHint(model.canWithdraw ? "Shows the withdrawal to confirm" : "Fill in what is still needed first")
    }

    private var isShort: Bool { if case .insufficient = model.balanceLine { true } else { false } }

    // MARK: Confirming

    @ViewBuilder
    private func confirmation(_ summary: WithdrawModel.Summary) -> some View {
        Text("Confirm the withdrawal")
            .font(.title2.bold())
            .accessibilityAddTraits(.isHeader)
        WithdrawSummaryCard(summary: summary)
        Text(summary.confirmationText)
            .font(.callout)
            .fixedSize(horizontal: false, vertical: true)
        Button {
            work = Task { await model.withdraw() }
        } label: {
            Text(ViewText.withdraw(summary.amountText)).frame(maxWidth: .infinity)
        }
        .buttonStyle(.borderedProminent)
        .controlSize(.large)
        .accessibilityLabel(ViewText.withdrawTo(summary.amountText, address: summary.address))
        .accessibilityHint("Asks the issuer to pay this amount out to the address on the blockchain")
        Button("Edit") { model.edit() }
            .frame(maxWidth: .infinity)
    }
}

/// The request and the payout: a spinner while the issuer is asked or the payout is on its way,
/// the status in words, the transaction hash once there is one, and, when it is over, "New
/// withdrawal" (back to the form, the fields kept) and Done.
private struct WithdrawProgress: View {
    let model: WithdrawModel
    let onEdit: @MainActor () -> Void
    let onDone: @MainActor () -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 14) {
            switch model.phase {
            case .submitting:
                ProgressView()
                    .frame(maxWidth: .infinity)
                statusLine(icon: "paperplane", tint: .primary)
            case .tracking(let withdrawal):
                ProgressView()
                    .frame(maxWidth: .infinity)
                statusLine(icon: "clock", tint: .primary)
                if let hash = withdrawal.txHash {
                    CopyableValue(title: ViewText.transactionTitle, value: hash)
                }
                Text("You can close this screen: the issuer completes the payout, and its status shows here next time.")
                    .font(.footnote)
                    .foregroundStyle(.secondary)
                    .fixedSize(horizontal: false, vertical: true)
            case .finished(let withdrawal):
                if withdrawal.status == .paid {
                    statusLine(icon: "checkmark.circle.fill", tint: .green)
                } else {
                    statusLine(icon: "arrow.uturn.backward.circle.fill", tint: .orange)
                }
                if let hash = withdrawal.txHash {
                    CopyableValue(title: ViewText.transactionTitle, value: hash)
                }
            case .failed:
                statusLine(icon: "exclamationmark.triangle.fill", tint: .red)
            case .editing, .confirming:
                EmptyView()
            }
            if !model.phase.isBusy {
                AdaptiveStack(stackedAlignment: .center) {
                    Button(isFailed ? "Edit the withdrawal" : "New withdrawal") { onEdit() }
                        .buttonStyle(.bordered)
                    Spacer()
                    Button("Done") { onDone() }
                        .buttonStyle(.borderedProminent)
                }
                .controlSize(.large)
            }
        }
    }

    private var isFailed: Bool { if case .failed = model.phase { true } else { false } }

    @ViewBuilder
    private func statusLine(icon: String, tint: Color) -> some View {
        if let line = model.phaseText {
            Label(line, systemImage: icon)
                .font(.body)
                .foregroundStyle(tint)
                .fixedSize(horizontal: false, vertical: true)
        }
    }
}

/// The summary card: how much, to which address, and what remains of the settled balance.
private struct WithdrawSummaryCard: View {
    let summary: WithdrawModel.Summary

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            SummaryRow("Amount", summary.amountText)
            VStack(alignment: .leading, spacing: 2) {
                Text("To")
                    .foregroundStyle(.secondary)
                Text(summary.address)
                    .font(.callout.monospaced())
                    .textSelection(.enabled)
                    .fixedSize(horizontal: false, vertical: true)
            }
            .font(.callout)
            SummaryRow("Remaining after", summary.remainingText)
        }
        .padding()
        .frame(maxWidth: .infinity, alignment: .leading)
        .background(RoundedRectangle(cornerRadius: 14).fill(.background.secondary))
        .accessibilityElement(children: .combine)
    }
}

/// The account's withdrawals, newest first, each with its payout status (an icon and the
/// model's words) and its transaction hash; a refresh button reads them again.
private struct RecentWithdrawals: View {
    let model: WithdrawModel

    var body: some View {
        VStack(alignment: .leading, spacing: 10) {
            AdaptiveStack {
                Text("Recent withdrawals")
                    .font(.headline)
                    .accessibilityAddTraits(.isHeader)
                Spacer()
                Button {
                    Task { await model.load() }
                } label: {
                    Image(systemName: "arrow.clockwise")
                }
                .disabled(model.phase.isBusy)
                .accessibilityLabel("Refresh the withdrawals")
            }
            if model.recent.isEmpty && model.loadError == nil {
                Text("None yet.")
                    .font(.footnote)
                    .foregroundStyle(.secondary)
            }
            ForEach(model.recent) { withdrawal in
                HStack(alignment: .firstTextBaseline, spacing: 10) {
                    // The payout status as an icon (the words follow in the text).
                    switch withdrawal.status {
                    case .pending:
                        Image(systemName: "clock").foregroundStyle(.secondary).accessibilityLabel("Pending")
                    case .sent:
                        Image(systemName: "arrow.up.circle").foregroundStyle(Color.accentColor).accessibilityLabel("Sent")
                    case .paid:
                        Image(systemName: "checkmark.circle.fill").foregroundStyle(.green).accessibilityLabel("Paid")
                    case .refused:
                        Image(systemName: "arrow.uturn.backward.circle.fill").foregroundStyle(.orange)
                            .accessibilityLabel("Refused, money back")
                    }
                    VStack(alignment: .leading, spacing: 4) {
                        Text(WithdrawModel.statusText(withdrawal, currency: model.currency))
                            .font(.footnote)
                            .fixedSize(horizontal: false, vertical: true)
                        if let hash = withdrawal.txHash {
                            Text(hash)
                                .font(.caption2.monospaced())
                                .foregroundStyle(.secondary)
                                .textSelection(.enabled)
                                .lineLimit(1)
                                .truncationMode(.middle)
                                .accessibilityLabel(ViewText.transaction(hash))
                        }
                    }
                }
                .accessibilityElement(children: .combine)
            }
        }
    }
}
