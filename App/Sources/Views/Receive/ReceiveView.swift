import SwiftUI
import WalletAppModels

/// The Receive sheet: an optional amount and a description (amount → description, the last
/// Return generates), "Generate QR code", then the request's code (animated through its frames
/// when there are several) with the amount, description, expiry, share and regenerate; the
/// nearby listener's progress; the payer's payment scanned as QR; and the verified incoming
/// payment with, for a QR payer, the receipt's code to scan back. Binds `ReceiveModel`.
///
/// Nearby (Bluetooth LE), the request is served on the endpoint the app's advertiser made for
/// it (`ReceiveModel.listenNearby()`), or by `listen` when the composition root passes one.
struct ReceiveView: View {
    @Bindable var model: ReceiveModel
    let app: AppModel
    var listen: (@MainActor (ReceiveModel) async -> Void)?

    @FocusState private var focused: ReceiveModel.Field?
    @State private var scanner: Presented<ScanAssembler>?
    @State private var scanMessage: String?
    @Environment(\.dismiss) private var dismiss

    init(model: ReceiveModel, app: AppModel, listen: (@MainActor (ReceiveModel) async -> Void)? = nil) {
        self.model = model
        self.app = app
        self.listen = listen
    }

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 18) {
                    switch model.phase {
                    case .editing, .generating, .failed:
                        form
                    case .showingRequest:
                        request
                    case .received:
                        received
                    }
                }
                .padding()
            }
            .navigationTitle("Receive")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                }
            }
            .formKeyboardToolbar(model)
            // Inside the navigation stack, with the fields it exempts: the named coordinate
            // space and the fields' frames need not cross the stack's hosting boundary.
            .dismissesKeyboardOnTap { model.focus.clearFocus() }
        }
        .syncsFocus($focused, with: $model.focus.focused)
        // The nearby listener's stages (a payer connected, receiving, receipt sent) reach VoiceOver once each.
        .announcesChanges(model.listeningAnnouncement)
        .onAppear { model.appear() }
        .onDisappear { model.stopListening() }
        .task(id: model.phase == .showingRequest) {
            // A new request is served nearby until it is paid or the sheet closes.
            guard model.phase == .showingRequest else { return }
            if let listen { await listen(model) } else { await model.listenNearby() }
        }
        .sheet(item: $scanner) { item in
            ScanView(model: item.model, title: "Scan the payer's code") { result in
                scanner = nil
                switch result {
                case .receive(let bundle): Task { await model.receiveScanned(bundle) }
                case .send, .confirm: scanMessage = "That is not a payment. Scan the code the payer's Send screen shows."
                }
            }
            .coveredWhileLocked(app.lock)
        }
        .messageAlert("Not a payment", message: $scanMessage)
    }

    // MARK: The form

    @ViewBuilder
    private var form: some View {
        CurrencyField(
            "Amount (optional)", text: $model.amount.text, currencyCode: "\(model.currency)",
            validity: model.amount.validity, focus: $focused, field: .amount, isLocked: model.phase == .generating)
        Text("Leave the amount empty to let the payer choose it.")
            .font(.footnote)
            .foregroundStyle(.secondary)
        FormTextField(
            "Description (optional)", prompt: "What is it for?", text: $model.note, form: model, field: .description,
            focused: $focused)
        if case .failed(let message) = model.phase {
            Label(message, systemImage: "exclamationmark.triangle.fill")
                .foregroundStyle(.red)
        }
        if let error = model.scanError {
            // A payment scanned from home or the QR Code tab lands here before any request.
            Label(error, systemImage: "exclamationmark.triangle.fill")
                .foregroundStyle(.red)
        }
        Button {
            model.submit()
        } label: {
            HStack {
                if model.phase == .generating { ProgressView() }
                Text("Generate QR code")
            }
            .frame(maxWidth: .infinity)
        }
        .buttonStyle(.borderedProminent)
        .controlSize(.large)
        .disabled(!model.canGenerate)
        .accessibilityHint("Shows a code for the payer to scan, and offers the request nearby")
    }

    // MARK: The request

    @ViewBuilder
    private var request: some View {
        VStack(spacing: 6) {
            Text("Payment request")
                .font(.headline)
                .accessibilityAddTraits(.isHeader)
            if let amount = model.requestAmountText {
                Text(amount)
                    .font(.title.bold().monospacedDigit())
            }
            if !model.note.isEmpty {
                Text(model.note)
                    .font(.callout)
                    .foregroundStyle(.secondary)
            }
        }
        .frame(maxWidth: .infinity)
        .accessibilityElement(children: .combine)

        if let frame = model.currentFrame {
            QRFramesView(
                frame: frame, isAnimated: model.isAnimated, partText: model.frameText,
                accessibilityLabel: ViewText.requestCode(amount: model.requestAmountText),
                accessibilityValue: model.requestCodeAccessibilityValue,
                advance: { model.advanceFrame() }
            )
            .frame(maxWidth: .infinity)
        }
        if let expiry = model.requestExpiry {
            HStack(spacing: 4) {
                Text("Expires at")
                Text(expiry, style: .time)
            }
            .font(.footnote)
            .foregroundStyle(.secondary)
            .frame(maxWidth: .infinity)
            .accessibilityElement(children: .combine)
        }
        if let line = model.listeningText {
            Label(line, systemImage: "dot.radiowaves.left.and.right")
                .font(.callout)
        }
        if let problem = model.nearbyProblem {
            Label(problem, systemImage: "antenna.radiowaves.left.and.right.slash")
                .font(.footnote)
                .foregroundStyle(.orange)
                .accessibilityLabel(ViewText.notOfferedNearby(problem))
        }
        if let error = model.scanError {
            Text(error)
                .font(.footnote)
                .foregroundStyle(.red)
        }
        AdaptiveStack {
            if let share = model.shareText {
                ShareLink(item: share) {
                    Label("Share", systemImage: "square.and.arrow.up")
                }
                .accessibilityLabel("Share the request as text")
            }
            Spacer()
            Button {
                model.edit()
            } label: {
                Label("Regenerate", systemImage: "arrow.clockwise")
            }
            .accessibilityLabel("Change the amount or description and generate a new code")
        }
        Button {
            scanner = Presented(app.makeScan())
        } label: {
            Label("Scan the payer's code", systemImage: "qrcode.viewfinder").frame(maxWidth: .infinity)
        }
        .buttonStyle(.bordered)
        .controlSize(.large)
        .accessibilityHint("When the payer pays by QR, scan the code their phone shows")
    }

    // MARK: Received

    @ViewBuilder
    private var received: some View {
        if let incoming = model.incomingText {
            Label(incoming, systemImage: "checkmark.circle.fill")
                .font(.title3.bold())
                .foregroundStyle(.green)
        }
        if let payer = model.payerText {
            Text(payer)
                .font(.footnote.monospaced())
                .foregroundStyle(.secondary)
        }
        if !model.receiptFrames.isEmpty {
            Text("Show this receipt to the payer so their phone can confirm the payment.")
                .font(.callout)
            CyclingQRFramesView(
                frames: model.receiptFrames, accessibilityLabel: ViewText.receiptCode,
                accessibilityValue: { ReceiveModel.receiptCodeAccessibilityValue(showing: $0, of: $1) }
            )
            .frame(maxWidth: .infinity)
        }
        Button("Done") { dismiss() }
            .buttonStyle(.borderedProminent)
            .controlSize(.large)
            .frame(maxWidth: .infinity)
    }
}
