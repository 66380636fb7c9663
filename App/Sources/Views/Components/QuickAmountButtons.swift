import SwiftUI
import WalletAppModels

/// The quick amounts under the amount field (10 / 25 / 50 / 100 from `AmountEntry.quickAmounts`):
/// pill-shaped secondary buttons, the one equal to the amount highlighted (`selected`, from the
/// model's `AmountEntry.selectedQuickAmount`). A tap calls `onTap`, which must go to the model
/// (`SendModel.tapQuickAmount`: it REPLACES the amount and moves focus on to the description;
/// `BuyModel.applyQuickAmount`), never edit the text here. In one row at the standard text
/// sizes; at the accessibility sizes the pills wrap onto as many rows as they need.
struct QuickAmountButtons: View {
    var amounts: [UInt64] = AmountEntry.quickAmounts
    let selected: UInt64?
    let currencyCode: String
    var isDisabled = false
    let onTap: @MainActor (UInt64) -> Void
    @Environment(\.dynamicTypeSize) private var dynamicTypeSize
    /// The narrowest a wrapped pill gets: it grows with the text.
    @ScaledMetric(relativeTo: .callout) private var wrappedPillWidth: CGFloat = 72

    var body: some View {
        Group {
            if dynamicTypeSize.isAccessibilitySize {
                LazyVGrid(
                    columns: [GridItem(.adaptive(minimum: wrappedPillWidth), spacing: 8)], alignment: .leading, spacing: 8
                ) {
                    pills
                }
            } else {
                HStack(spacing: 8) {
                    pills
                    Spacer(minLength: 0)
                }
            }
        }
        .accessibilityElement(children: .contain)
        .accessibilityLabel("Quick amounts")
        // A tap here is not "outside the fields": the model moves focus on to the next field,
        // and the screen's tap-to-dismiss must not clear it in the same tap.
        .keepsKeyboardOnTap()
    }

    private var pills: some View {
        ForEach(amounts, id: \.self) { amount in
            let isSelected = amount == selected
            Button {
                onTap(amount)
            } label: {
                Text(verbatim: "\(amount)")
                    .font(.callout.weight(.semibold).monospacedDigit())
                    .padding(.horizontal, 14)
                    .padding(.vertical, 6)
                    .frame(minWidth: 44, minHeight: 32)
                    .foregroundStyle(isSelected ? Color.white : Color.accentColor)
                    .background(Capsule().fill(isSelected ? Color.accentColor : Color.accentColor.opacity(0.12)))
            }
            .buttonStyle(.plain)
            .disabled(isDisabled)
            .accessibilityLabel(ViewText.quickAmount("\(amount)", currency: currencyCode))
            .accessibilityHint(ViewText.quickAmountHint("\(amount)", currency: currencyCode))
            .accessibilityAddTraits(isSelected ? .isSelected : [])
        }
    }
}
