import SwiftUI

/// "Still needed": the checklist of what a form lacks before its primary button is enabled, one
/// line per missing item in the order the form is filled (the model's `missing`, as text).
/// Nothing when the list is empty. Send and Withdraw show it above their button.
struct MissingChecklist: View {
    let lines: [String]

    var body: some View {
        if !lines.isEmpty {
            VStack(alignment: .leading, spacing: 6) {
                Text("Still needed")
                    .font(.subheadline.weight(.semibold))
                    .accessibilityAddTraits(.isHeader)
                ForEach(lines, id: \.self) { line in
                    Label(line, systemImage: "circle")
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                }
            }
            .accessibilityElement(children: .combine)
        }
    }
}

/// One row of a summary card: the title on the left, the model's text on the right; the value
/// under its title at the accessibility text sizes, wrapping rather than truncated.
struct SummaryRow: View {
    let title: LocalizedStringKey
    let value: String

    init(_ title: LocalizedStringKey, _ value: String) {
        self.title = title
        self.value = value
    }

    var body: some View {
        AdaptiveStack(alignment: .firstTextBaseline, spacing: 4) {
            Text(title)
                .foregroundStyle(.secondary)
            Spacer(minLength: 8)
            Text(value)
                .multilineTextAlignment(.trailing)
                .monospacedDigit()
                .fixedSize(horizontal: false, vertical: true)
        }
        .font(.callout)
    }
}
