import SwiftUI

/// An amount as the screens show it: the model's text ("12.50 EUR") in a Dynamic Type text
/// style with tabular digits, and the model's spoken form for VoiceOver ("12.50 Euro"), with
/// an optional caption ("Total balance") read first. One line, scaled down a little where it
/// would not fit, at the standard text sizes; at the accessibility sizes it wraps instead, so an
/// amount is never cut off.
struct AmountText: View {
    let text: String
    var spoken: String?
    var caption: LocalizedStringKey?
    var style: Font = .title
    @Environment(\.dynamicTypeSize) private var dynamicTypeSize

    var body: some View {
        Text(text)
            .font(style.monospacedDigit())
            .minimumScaleFactor(0.6)
            .lineLimit(dynamicTypeSize.isAccessibilitySize ? nil : 1)
            .fixedSize(horizontal: false, vertical: true)
            .modifier(CaptionFirst(caption: caption, amount: spoken ?? text))
    }
}

/// With a caption, VoiceOver reads it as the label and the amount as the value ("Total
/// balance, 12.50 Euro"): two catalog texts, never one string glued from both.
private struct CaptionFirst: ViewModifier {
    let caption: LocalizedStringKey?
    let amount: String

    func body(content: Content) -> some View {
        if let caption {
            content.accessibilityLabel(Text(caption)).accessibilityValue(amount)
        } else {
            content.accessibilityLabel(amount)
        }
    }
}
