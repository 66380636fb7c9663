import SwiftUI
import WalletAppModels

/// The Deposit sheet: how to put tokens from the person's own Ethereum wallet into the account.
/// It reads the issuer's instructions as it opens (`DepositModel.load()`), then shows an optional
/// amount with quick amounts, the lines on what happens, the two steps as QR codes an ordinary
/// Ethereum wallet scans (1 approve, 2 deposit: EIP-681 requests), and the escrow, network (its EIP-155 chain ID) and
/// account reference as text for wallets that cannot scan them. An issuer without escrow
/// settlement, or instructions that cannot be read, say so here (with "Try again" when it may
/// help). Binds `DepositModel`.
///
/// Copy: the values are selectable (press and hold, Copy), and each share button hands the
/// model's text to the share sheet, whose first action is Copy — the same way Receive offers its
/// request's text. (A one-tap copy would need the pasteboard, which is UIKit: an adapter's job.)
struct DepositView: View {
    @Bindable var model: DepositModel
    @FocusState private var focused: DepositModel.Field?
    @Environment(\.dismiss) private var dismiss

    init(model: DepositModel) {
        self.model = model
    }

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 18) {
                    switch model.phase {
                    case .loading:
                        ProgressView(model.phaseText ?? "Reading the deposit instructions…")
                            .frame(maxWidth: .infinity)
                    case .notAvailable:
                        ContentUnavailableView(
                            "Deposits are not available", systemImage: "link", description: Text(model.phaseText ?? ""))
                    case .failed:
                        failure
                    case .ready(let instructions):
                        DepositAmountSection(model: model, focused: $focused)
                        if let summary = model.summaryText {
                            Text(summary)
                                .font(.callout)
                                .fixedSize(horizontal: false, vertical: true)
                        }
                        DepositSteps(model: model)
                        details(chainID: "\(instructions.chainID)", token: instructions.token)
                    }
                }
                .padding()
            }
            .navigationTitle("Deposit")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                }
            }
            .formKeyboardToolbar(model)
            // Inside the navigation stack, with the field it exempts (as on the other sheets).
            .dismissesKeyboardOnTap { model.focus.clearFocus() }
        }
        .syncsFocus($focused, with: $model.focus.focused)
        .task { await model.load() }
    }

    @ViewBuilder
    private var failure: some View {
        Label(model.phaseText ?? "The deposit instructions could not be read.", systemImage: "exclamationmark.triangle.fill")
            .foregroundStyle(.red)
            .fixedSize(horizontal: false, vertical: true)
        if model.canRetry {
            Button {
                Task { await model.load() }
            } label: {
                Text("Try again").frame(maxWidth: .infinity)
            }
            .buttonStyle(.borderedProminent)
            .controlSize(.large)
        }
    }

    /// The values for a wallet that cannot scan the codes: typed or pasted into it by hand.
    @ViewBuilder
    private func details(chainID: String, token: String) -> some View {
        VStack(alignment: .leading, spacing: 12) {
            Text("Without scanning")
                .font(.headline)
                .accessibilityAddTraits(.isHeader)
            Text(
                "In a wallet that cannot scan the codes: approve the escrow to spend the token, then call the escrow's deposit with the amount and your account reference."
            )
            .font(.footnote)
            .foregroundStyle(.secondary)
            if let escrow = model.escrowAddress {
                CopyableValue(title: ViewText.escrowAddress, value: escrow)
            }
            CopyableValue(title: ViewText.chainID, value: chainID)
            if let reference = model.accountReference {
                CopyableValue(title: ViewText.accountReference, value: reference)
            }
            CopyableValue(title: ViewText.tokenContract, value: token)
            if let all = model.copyText {
                ShareLink(item: all) {
                    Label("Copy or share all instructions", systemImage: "square.and.arrow.up")
                        .frame(maxWidth: .infinity)
                }
                .buttonStyle(.bordered)
                .accessibilityHint("Opens the share sheet; choose Copy to copy them as text")
            }
        }
    }
}

/// The optional amount: the shared currency field (no maximum: the tokens are the person's own)
/// and the quick amounts, which replace it. Without an amount the Ethereum wallet asks for one.
private struct DepositAmountSection: View {
    @Bindable var model: DepositModel
    let focused: FocusState<DepositModel.Field?>.Binding

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            CurrencyField(
                "Amount (optional)", text: $model.amount.text, currencyCode: "\(model.currency)",
                validity: model.amount.validity, focus: focused, field: .amount)
            QuickAmountButtons(selected: model.amount.selectedQuickAmount, currencyCode: "\(model.currency)") {
                model.tapQuickAmount($0)
            }
            Text("Leave it empty to choose the amount in your Ethereum wallet.")
                .font(.footnote)
                .foregroundStyle(.secondary)
        }
    }
}

/// The two codes, in order, each with what it does and its text to share. Shown only while the
/// amount field holds an amount or nothing (`DepositModel.plan`): a code without the amount typed
/// would be mistaken for one with it.
private struct DepositSteps: View {
    let model: DepositModel

    var body: some View {
        if let approve = model.approveURI, let deposit = model.depositURI {
            DepositStep(
                number: 1, title: ViewText.approveStep, explanation: ViewText.approveStepExplanation,
                uri: approve)
            DepositStep(
                number: 2, title: ViewText.depositStepTitle, explanation: ViewText.depositStepExplanation,
                uri: deposit)
        } else {
            Label("Correct the amount, or clear it, to see the codes.", systemImage: "exclamationmark.circle")
                .font(.callout)
                .foregroundStyle(.orange)
        }
    }
}

private struct DepositStep: View {
    let number: Int
    let title: String
    let explanation: String
    let uri: String

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text(ViewText.depositStep(number, title: title))
                .font(.headline)
                .accessibilityAddTraits(.isHeader)
            Text(explanation)
                .font(.callout)
                .fixedSize(horizontal: false, vertical: true)
            QRCodeImage(text: uri, accessibilityLabel: ViewText.depositStepCode(number, title: title))
                .aspectRatio(1, contentMode: .fit)
                .frame(maxWidth: 280)
                .padding(12)
                .background(RoundedRectangle(cornerRadius: 16).fill(Color.white))
                .frame(maxWidth: .infinity)
            ShareLink(item: uri) {
                Label(ViewText.depositStepShare(number), systemImage: "square.and.arrow.up")
                    .font(.footnote)
            }
            .frame(maxWidth: .infinity)
            .accessibilityHint("Opens the share sheet with the request as text; choose Copy, or open it in a wallet app")
        }
        .padding()
        .background(RoundedRectangle(cornerRadius: 14).fill(.background.secondary))
    }
}

/// One value to type or paste into another wallet: its title, the value (selectable, monospaced,
/// wrapping), and a share button whose sheet offers Copy.
struct CopyableValue: View {
    let title: String
    let value: String

    var body: some View {
        AdaptiveStack(alignment: .firstTextBaseline) {
            VStack(alignment: .leading, spacing: 2) {
                Text(title)
                    .font(.subheadline)
                    .foregroundStyle(.secondary)
                Text(value)
                    .font(.callout.monospaced())
                    .textSelection(.enabled)
                    .fixedSize(horizontal: false, vertical: true)
            }
            .accessibilityElement(children: .combine)
            Spacer()
            ShareLink(item: value) {
                Image(systemName: "doc.on.doc")
            }
            .accessibilityLabel(ViewText.copyOrShare(title))
            .accessibilityHint("Opens the share sheet; choose Copy")
        }
    }
}
