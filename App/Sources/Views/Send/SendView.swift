import SwiftUI
import WalletAppModels

/// The Send sheet. Editing: the method (Offline QR / Bluetooth / Online), the recipient with a
/// scan button (and the nearby-device picker for Bluetooth), the amount with its validity
/// border and quick amounts, the available balance with its usage bar and "Remaining" or
/// "Insufficient balance", the description, the summary card, the checklist of what is still
/// missing, and the Send button labelled by method. Then the confirmation, the progress and the
/// result. Binds `SendModel`; `app` only makes the scanner and nearby-devices sheets.
///
/// Focus: recipient → amount → description; the amount is focused with the decimal pad as the
/// sheet opens; a quick amount replaces the amount and moves on to the description.
struct SendView: View {
    @Bindable var model: SendModel
    let app: AppModel
    /// In the Transactions tab (not a sheet): no Close button, and Done starts a new payment.
    var onFinish: (@MainActor () -> Void)?

    @FocusState private var focused: SendModel.Field?
    @State private var scanner: Presented<ScanAssembler>?
    @State private var nearby: Presented<NearbyDevicesModel>?
    @State private var scanMessage: String?
    @Environment(\.dismiss) private var dismiss

    init(model: SendModel, app: AppModel, onFinish: (@MainActor () -> Void)? = nil) {
        self.model = model
        self.app = app
        self.onFinish = onFinish
    }

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 18) {
                    switch model.phase {
                    case .editing:
                        form
                    case .confirming(let summary):
                        confirmation(summary)
                    default:
                        progress
                    }
                }
                .padding()
            }
            .navigationTitle("Send")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                if onFinish == nil {
                    ToolbarItem(placement: .cancellationAction) {
                        Button("Close") { dismiss() }
                            .disabled(model.phase.isBusy && !model.awaitsScannedReceipt)
                    }
                }
            }
            .formKeyboardToolbar(model)
            // Inside the navigation stack, with the fields it exempts: the named coordinate
            // space and the fields' frames need not cross the stack's hosting boundary.
            .dismissesKeyboardOnTap { model.focus.clearFocus() }
        }
        .syncsFocus($focused, with: $model.focus.focused)
        .interactiveDismissDisabled(model.phase.isBusy)
        // Each stage of the payment (connecting, sending, paid, failed) is told to VoiceOver once.
        .announcesChanges(model.progressAnnouncement)
        .onAppear { model.appear() }
        .sheet(item: $scanner) { item in
            ScanView(model: item.model, title: model.awaitsScannedReceipt ? "Scan receipt" : "Scan request") { result in
                scanner = nil
                route(result)
            }
            .coveredWhileLocked(app.lock)
        }
        .sheet(item: $nearby) { item in
            NearbyDevicesView(model: item.model, send: model)
                .coveredWhileLocked(app.lock)
        }
        .messageAlert("Not for this screen", message: $scanMessage)
    }

    // MARK: Editing

    @ViewBuilder
    private var form: some View {
        Picker("Method", selection: $model.method) {
            ForEach(model.allowedMethods, id: \.self) { method in
                Text(method.title).tag(method)
            }
        }
        .pickerStyle(.segmented)
        .accessibilityLabel("Payment method")

        recipientSection

        VStack(alignment: .leading, spacing: 8) {
            CurrencyField(
                "Amount", text: $model.amountText, currencyCode: "\(model.currency)", validity: model.amount.validity,
                focus: $focused, field: .amount, isLocked: model.isAmountLocked)
            QuickAmountButtons(
                selected: model.amount.selectedQuickAmount, currencyCode: "\(model.currency)",
                isDisabled: model.isAmountLocked
            ) { model.tapQuickAmount($0) }
        }

        availableSection

        FormTextField(
            "Description (optional)", prompt: "What is it for?", text: $model.note, form: model, field: .description,
            focused: $focused)

        if let summary = model.summary {
            SummaryCard(summary: summary)
        }

        MissingChecklist(lines: model.missing.map(\.description))

        Button {
            model.submit()
        } label: {
            VStack(spacing: 2) {
                Text("Send").font(.headline)
                Text(model.sendButtonTitle).font(.caption)
            }
            .frame(maxWidth: .infinity)
        }
        .buttonStyle(.borderedProminent)
        .controlSize(.large)
        .disabled(!model.canSend)
        .accessibilityLabel(ViewText.sendButton(model.sendButtonTitle))
        .accessibilityHint(model.canSend ? "Shows the payment to confirm" : "Fill in what is still needed first")
    }

    private var recipientSection: some View {
        VStack(alignment: .leading, spacing: 6) {
            AdaptiveStack(alignment: .bottom) {
                FormTextField(
                    "Recipient", prompt: "Scan a request or enter an account email", text: $model.recipientText, form: model,
                    field: .recipient, focused: $focused
                )
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
                .keyboardType(.emailAddress)
                Button {
                    scanner = Presented(app.makeScan())
                } label: {
                    Image(systemName: "qrcode.viewfinder")
                        .font(.title2)
                }
                .buttonStyle(.bordered)
                .accessibilityLabel("Scan the payee's request")
                .accessibilityHint("Opens the camera; the request fills in the recipient and the amount")
            }
            if let request = model.requestText {
                AdaptiveStack {
                    Label(request, systemImage: "qrcode")
                        .font(.footnote)
                    Spacer()
                    Button("Clear") { model.clearRequest() }
                        .font(.footnote)
                        .accessibilityLabel("Clear the scanned request")
                }
            }
            if model.method == .bluetooth {
                AdaptiveStack {
                    if let peer = model.nearbyPeerText {
                        Label(peer, systemImage: "dot.radiowaves.left.and.right")
                            .font(.footnote)
                    }
                    Spacer()
                    Button("Choose nearby device") {
                        // TODO(H1 seam): `makeNearbyDevices` is nil until the app passes its
                        // Bluetooth LE browser (NearbyBrowser) to AppModel; the button then works.
                        if let devices = app.makeNearbyDevices(request: model.requestToPay) {
                            nearby = Presented(devices)
                        } else {
                            scanMessage = "Bluetooth is not available on this device. Pay by QR instead."
                        }
                    }
                    .font(.footnote)
                    .accessibilityHint("Lists the wallets nearby, to pay one of them by Bluetooth")
                }
            }
        }
    }

    private var availableSection: some View {
        VStack(alignment: .leading, spacing: 6) {
            AdaptiveStack {
                Text("Available balance")
                    .font(.subheadline)
                    .foregroundStyle(.secondary)
                Spacer()
                Text(model.availableText)
                    .font(.subheadline.monospacedDigit())
            }
            ProgressView(value: model.usage)
                .tint(model.isInsufficient ? Color.red : Color.accentColor)
                .accessibilityLabel("Share of the available balance used")
            Text(model.balanceLineText)
                .font(.footnote.monospacedDigit())
                .foregroundStyle(model.isInsufficient ? Color.red : Color.secondary)
        }
        .accessibilityElement(children: .combine)
        .accessibilityLabel(ViewText.availableBalance(model.availableText, line: model.balanceLineText))
    }

    // MARK: Confirming

    @ViewBuilder
    private func confirmation(_ summary: SendModel.Summary) -> some View {
        Text("Confirm the payment")
            .font(.title2.bold())
            .accessibilityAddTraits(.isHeader)
        SummaryCard(summary: summary)
        Button {
            Task { await model.send() }
        } label: {
            Text(ViewText.sendAmount(summary.amountText)).frame(maxWidth: .infinity)
        }
        .buttonStyle(.borderedProminent)
        .controlSize(.large)
        .accessibilityLabel(ViewText.sendAmountTo(summary.amountSpoken, recipient: summary.recipientName))
        .accessibilityHint("Signs and sends the payment; it cannot be taken back")
        Button("Edit") { model.dismissConfirmation() }
            .frame(maxWidth: .infinity)
            .accessibilityHint("Back to the form; nothing is sent")
    }

    // MARK: Paying

    @ViewBuilder
    private var progress: some View {
        if model.phase.isBusy && !model.awaitsScannedReceipt {
            if let fraction = model.sendingFraction {
                ProgressView(value: fraction)
                    .accessibilityLabel("Sending")
            } else {
                ProgressView()
            }
        }
        if let line = model.phaseText {
            Text(line)
                .font(.body)
                .foregroundStyle(isFailed ? Color.red : Color.primary)
        }
        if model.awaitsScannedReceipt {
            CyclingQRFramesView(
                frames: model.paymentFrames, accessibilityLabel: ViewText.paymentCode,
                accessibilityValue: { SendModel.paymentCodeAccessibilityValue(showing: $0, of: $1) }
            )
            .frame(maxWidth: .infinity)
            if let error = model.receiptError {
                Text(error)
                    .font(.footnote)
                    .foregroundStyle(.red)
            }
            Button {
                scanner = Presented(app.makeScan())
            } label: {
                Label("Scan receipt", systemImage: "qrcode.viewfinder").frame(maxWidth: .infinity)
            }
            .buttonStyle(.borderedProminent)
            .controlSize(.large)
            .accessibilityHint("Opens the camera to read the receipt on the payee's screen, which completes the payment")
        }
        if model.canTryAgain {
            Button {
                Task { await model.tryAgain() }
            } label: {
                Text("Try again").frame(maxWidth: .infinity)
            }
            .buttonStyle(.borderedProminent)
            .controlSize(.large)
            .accessibilityHint("Sends the same signed payment again; it is never paid twice")
        }
        if !model.phase.isBusy {
            if isFailed {
                Button("Edit the payment") { model.dismissConfirmation() }
                    .frame(maxWidth: .infinity)
            }
            Button("Done") { if let onFinish { onFinish() } else { dismiss() } }
                .buttonStyle(.bordered)
                .frame(maxWidth: .infinity)
        }
    }

    private var isFailed: Bool { if case .failed = model.phase { true } else { false } }

    /// Where a scan made on this sheet goes: a request fills the recipient, a receipt confirms
    /// the QR payment; a payment is for the payee's Receive screen.
    private func route(_ result: ScanResult) {
        switch result {
        case .send(let request): model.useRequest(request)
        case .confirm(let receipt): Task { await model.acceptReceipt(receipt) }
        case .receive: scanMessage = "That code is a payment for a payee. Open Receive on the payee's phone to accept it."
        }
    }
}

/// The summary card: who, how much, how, what for, and what remains.
struct SummaryCard: View {
    let summary: SendModel.Summary

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            row("To", summary.recipientName)
            if let keyID = summary.payeeKeyID {
                row("Payee key", keyID)
            }
            row("Amount", summary.amountText)
            row("Method", summary.method.title)
            if !summary.description.isEmpty {
                row("Description", summary.description)
            }
            row("Remaining after", summary.remainingText)
        }
        .padding()
        .frame(maxWidth: .infinity, alignment: .leading)
        .background(RoundedRectangle(cornerRadius: 14).fill(.background.secondary))
        .accessibilityElement(children: .combine)
    }

    private func row(_ title: LocalizedStringKey, _ value: String) -> some View { SummaryRow(title, value) }
}
