import SwiftUI
import WalletAppModels

/// The proof behind one history line (`HistoryModel.Detail`, opened by `HistoryModel.open(_:)`):
/// the row itself, settlement, the chain of transfers, the counterparty's key, the issuer keys
/// that signed the notes (the proof's root), the receipt, fraud cases and the journal.
/// HistoryView presents it in a sheet; the home screen can present it the same way.
struct HistoryDetailView: View {
    let detail: HistoryModel.Detail

    var body: some View {
        List {
            Section {
                VStack(alignment: .leading, spacing: 6) {
                    Text(detail.row.amountText)
                        .font(.largeTitle.weight(.bold))
                        .monospacedDigit()
                        .foregroundStyle(detail.row.isIncoming ? Color.green : Color.primary)
                    Text(ViewText.detailHeading(detail.row.directionText, counterparty: detail.row.counterpartyText))
                        .font(.headline)
                    HStack(spacing: 6) {
                        HistoryBadge(text: detail.row.method, tint: .accentColor)
                        HistoryBadge(text: detail.row.statusText, tint: detail.row.status == .failed ? .red : .secondary)
                    }
                }
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(detail.row.accessibilitySummary)
                if let error = detail.row.error {
                    Label(error, systemImage: "exclamationmark.circle")
                        .foregroundStyle(.red)
                }
            }
            Section("When") {
                LabeledContent("Created") {
                    Text(detail.row.date, format: .dateTime.day().month().year().hour().minute())
                }
                LabeledContent("Receipt") {
                    if let receipt = detail.receiptDate {
                        Text(receipt, format: .dateTime.day().month().year().hour().minute())
                    } else {
                        Text("None held")
                    }
                }
            }
            Section("Settlement") {
                Text(detail.settlementText)
                    .fixedSize(horizontal: false, vertical: true)
            }
            Section("Proof") {
                LabeledContent("Chain", value: detail.chainText ?? "No notes involved")
                if let key = detail.counterpartyKey {
                    KeyLine(title: "Counterparty key", key: key)
                }
                if detail.issuerKeys.isEmpty {
                    LabeledContent("Issuer keys", value: ViewText.none)
                } else {
                    ForEach(detail.issuerKeys, id: \.self) { key in
                        KeyLine(title: "Issuer key", key: key)
                    }
                }
                LabeledContent("Journal entries", value: "\(detail.journalEntries)")
            }
            if !detail.fraudCases.isEmpty || !detail.fraudKinds.isEmpty {
                Section("Double spend") {
                    ForEach(detail.fraudCases, id: \.self) { fraudCase in
                        LabeledContent("Fraud case", value: "\(fraudCase)")
                    }
                    // Kinds may repeat (one per fraud record): identified by position.
                    ForEach(Array(detail.fraudKinds.enumerated()), id: \.offset) { _, kind in
                        Text(kind)
                            .font(.callout.monospaced())
                    }
                }
            }
        }
        .navigationTitle("Transaction")
        .navigationBarTitleDisplayMode(.inline)
    }
}

/// A key id, monospaced and selectable so it can be copied and quoted to support.
private struct KeyLine: View {
    let title: LocalizedStringKey
    let key: String

    var body: some View {
        VStack(alignment: .leading, spacing: 2) {
            Text(title)
                .font(.caption)
                .foregroundStyle(.secondary)
            Text(key)
                .font(.callout.monospaced())
                .textSelection(.enabled)
        }
        .accessibilityElement(children: .combine)
    }
}
