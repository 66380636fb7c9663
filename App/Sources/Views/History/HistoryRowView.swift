import SwiftUI
import WalletAppModels

/// One history line: the type icon with its status overlaid, counterparty, "5 min ago" and the
/// time of day, the method badge, the signed amount, the status badge and, on a failed line,
/// what went wrong. VoiceOver reads it as one sentence (`Row.accessibilitySummary`).
/// Also used by the home screen's recent transactions. At the accessibility text sizes its
/// lines stack and wrap instead of cutting the counterparty or the amount.
struct HistoryRowView: View {
    let row: HistoryModel.Row
    @Environment(\.dynamicTypeSize) private var dynamicTypeSize

    var body: some View {
        HStack(alignment: .top, spacing: 12) {
            icon
            VStack(alignment: .leading, spacing: 4) {
                AdaptiveStack(alignment: .firstTextBaseline, spacing: 4) {
                    Text(row.counterpartyText)
                        .font(.body.weight(.medium))
                        .lineLimit(dynamicTypeSize.isAccessibilitySize ? nil : 1)
                    Spacer(minLength: 8)
                    Text(row.amountText)
                        .font(.body.weight(.semibold))
                        .monospacedDigit()
                        .foregroundStyle(row.isIncoming ? Color.green : Color.primary)
                        .fixedSize(horizontal: false, vertical: true)
                        .layoutPriority(1)
                }
                AdaptiveStack(spacing: 6) {
                    Text(row.directionText)
                    if !dynamicTypeSize.isAccessibilitySize { Text("·") }
                    Text(row.relativeTime)
                    if !dynamicTypeSize.isAccessibilitySize { Text("·") }
                    Text(row.date, style: .time)
                }
                .font(.caption)
                .foregroundStyle(.secondary)
                HStack(spacing: 6) {
                    HistoryBadge(text: row.method, tint: .accentColor)
                    HistoryBadge(text: row.statusText, tint: statusTint)
                }
                if let error = row.error {
                    Text(error)
                        .font(.caption)
                        .foregroundStyle(.red)
                        .fixedSize(horizontal: false, vertical: true)
                }
            }
        }
        .padding(.vertical, 4)
        .contentShape(Rectangle())
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(row.accessibilitySummary)
    }

    /// The direction's symbol, with a small status mark on its corner.
    private var icon: some View {
        Image(systemName: row.isIncoming ? "arrow.down.left.circle.fill" : "arrow.up.right.circle.fill")
            .font(.title2)
            .foregroundStyle(row.isIncoming ? Color.green : Color.accentColor)
            .overlay(alignment: .bottomTrailing) {
                if let mark = statusSymbol {
                    Image(systemName: mark)
                        .font(.caption2)
                        .foregroundStyle(statusTint)
                        .background(Circle().fill(.background))
                        .offset(x: 3, y: 3)
                }
            }
            .accessibilityHidden(true)
    }

    private var statusSymbol: String? {
        switch row.status {
        case .pending: "clock.fill"
        case .failed: "exclamationmark.circle.fill"
        case .completed: nil
        }
    }

    private var statusTint: Color {
        switch row.status {
        case .pending: .orange
        case .failed: .red
        case .completed: .green
        }
    }
}

/// A small capsule label (the method and status badges).
struct HistoryBadge: View {
    let text: String
    let tint: Color

    var body: some View {
        Text(text)
            .font(.caption2.weight(.semibold))
            .padding(.horizontal, 6)
            .padding(.vertical, 2)
            .background(tint.opacity(0.15), in: Capsule())
            .foregroundStyle(tint)
    }
}
