import SwiftUI
import WalletAppModels

/// The QR Code tab: Scan QR / Generate QR, and the last request scanned with its amount and
/// age, which "Send payment" opens on Send prefilled. Binds `QRCodeTabModel`; the sheets are
/// the root's (`onScan`, `onGenerate`, `onSendPayment`).
struct QRCodeTabView: View {
    let model: QRCodeTabModel
    let onScan: @MainActor () -> Void
    let onGenerate: @MainActor () -> Void
    let onSendPayment: @MainActor () -> Void

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(spacing: 16) {
                    Button(action: onScan) {
                        Label("Scan QR code", systemImage: "qrcode.viewfinder")
                            .frame(maxWidth: .infinity, minHeight: 44)
                    }
                    .buttonStyle(.borderedProminent)
                    .controlSize(.large)
                    .accessibilityHint("Scan a payment request, a payment or a receipt")
                    Button(action: onGenerate) {
                        Label("Generate QR code", systemImage: "qrcode")
                            .frame(maxWidth: .infinity, minHeight: 44)
                    }
                    .buttonStyle(.bordered)
                    .controlSize(.large)
                    .accessibilityHint("Create a payment request for someone to pay you")
                    lastScanned
                }
                .padding()
            }
            .navigationTitle("QR Code")
        }
    }

    @ViewBuilder
    private var lastScanned: some View {
        if let payee = model.payeeText, let amount = model.amountText {
            VStack(alignment: .leading, spacing: 8) {
                Text("Last scanned request")
                    .font(.headline)
                    .accessibilityAddTraits(.isHeader)
                Text(payee)
                    .font(.body)
                Text(amount)
                    .font(.title2.bold().monospacedDigit())
                TimelineView(.periodic(from: .now, by: 30)) { _ in
                    Text(model.ageText ?? "")
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                }
                if model.isExpired {
                    Text("This request has expired. Ask the payee for a new one.")
                        .font(.footnote)
                        .foregroundStyle(.red)
                }
                AdaptiveStack {
                    Button("Send payment", action: onSendPayment)
                        .buttonStyle(.borderedProminent)
                        .disabled(model.isExpired)
                        .accessibilityLabel(ViewText.sendPaymentOf(amount, payee: payee))
                        .accessibilityHint("Opens Send with this request filled in, to confirm there")
                    Spacer()
                    Button("Clear") { model.clear() }
                        .accessibilityLabel("Forget the last scanned request")
                }
            }
            .padding()
            .frame(maxWidth: .infinity, alignment: .leading)
            .background(RoundedRectangle(cornerRadius: 16).fill(.background.secondary))
        }
    }
}
