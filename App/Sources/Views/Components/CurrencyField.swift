import SwiftUI
import WalletAppModels

/// The one amount field of the app (Send, Buy, Receive): a decimal pad, the currency code
/// beside the text, a border coloured by the model's `AmountEntry.Validity` (green usable,
/// red with the error under it, none while empty), and focus either driven by the screen
/// (`focus` + `field`: the screen's `@FocusState`, synced with the model's order) or, without
/// one, kept by the field itself and taken when it appears (`focusOnAppear`).
///
/// The text is the model's (`AmountEntry.text` or the model's locked `amountText`): the field
/// never parses or formats anything.
struct CurrencyField<Field: Hashable>: View {
    let title: LocalizedStringKey
    @Binding var text: String
    let currencyCode: String
    let validity: AmountEntry.Validity
    let focus: FocusState<Field?>.Binding?
    let field: Field?
    let focusOnAppear: Bool
    let isLocked: Bool

    /// Its own focus, used only when the screen passes none.
    @FocusState private var ownFocus: Bool

    /// A field whose focus the screen drives (`focus` equals `field` when it has the keyboard).
    init(
        _ title: LocalizedStringKey, text: Binding<String>, currencyCode: String, validity: AmountEntry.Validity,
        focus: FocusState<Field?>.Binding, field: Field, isLocked: Bool = false
    ) {
        self.title = title
        self._text = text
        self.currencyCode = currencyCode
        self.validity = validity
        self.focus = focus
        self.field = field
        self.focusOnAppear = false
        self.isLocked = isLocked
    }

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            FieldTitle(title)
            HStack {
                applyingFocus(
                    TextField(title, text: $text, prompt: Text("0"))
                        .keyboardType(.decimalPad)
                        .font(.title2.monospacedDigit())
                        .disabled(isLocked)
                        .accessibilityLabel(Text(title))
                        .accessibilityHint(ViewText.amountFieldCurrency(currencyCode))
                        .accessibilityValue(accessibilityValue)
                )
                Text(currencyCode)
                    .font(.title3)
                    .foregroundStyle(.secondary)
                    .accessibilityHidden(true)
            }
            .padding(.horizontal, 12)
            .padding(.vertical, 10)
            .background(RoundedRectangle(cornerRadius: 12).fill(.background.secondary))
            .overlay(RoundedRectangle(cornerRadius: 12).stroke(borderColor, lineWidth: 2))
            .keepsKeyboardOnTap()
            if case .invalid(let error) = validity {
                Text(error.description)
                    .font(.footnote)
                    .foregroundStyle(.red)
            }
        }
        .task {
            // Without a screen-driven focus, the field takes the keyboard itself after the
            // sheet finished presenting (focusing earlier often shows no keyboard on iOS).
            guard focus == nil, focusOnAppear else { return }
            try? await Task.sleep(for: FocusSync<Field>.presentationDelay)
            ownFocus = true
        }
    }

    @ViewBuilder
    private func applyingFocus(_ textField: some View) -> some View {
        if let focus, let field {
            textField.focused(focus, equals: field)
        } else {
            textField.focused($ownFocus)
        }
    }

    private var borderColor: Color {
        switch validity {
        case .neutral: .secondary.opacity(0.3)
        case .valid: .green
        case .invalid: .red
        }
    }

    private var accessibilityValue: String {
        let locked = isLocked ? ", set by the request" : ""
        switch validity {
        case .neutral: return "empty\(locked)"
        case .valid: return "\(text) \(currencyCode)\(locked)"
        case .invalid(let error): return "\(text), invalid: \(error.description)\(locked)"
        }
    }
}

extension CurrencyField where Field == Never {
    /// A field that keeps its own focus: it takes the keyboard when it appears when
    /// `focusOnAppear` (the amount of a one-field sheet).
    init(
        _ title: LocalizedStringKey, text: Binding<String>, currencyCode: String, validity: AmountEntry.Validity,
        focusOnAppear: Bool = true, isLocked: Bool = false
    ) {
        self.title = title
        self._text = text
        self.currencyCode = currencyCode
        self.validity = validity
        self.focus = nil
        self.field = nil
        self.focusOnAppear = focusOnAppear
        self.isLocked = isLocked
    }
}
