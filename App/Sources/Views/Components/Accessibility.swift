import SwiftUI

/// A row of text or buttons that becomes a column at the accessibility text sizes, where side
/// by side they would squeeze each other into truncated words and amounts. One layout switched
/// at run time (`AnyLayout`), so the children keep their identity and state when the size
/// changes.
struct AdaptiveStack<Content: View>: View {
    let alignment: VerticalAlignment
    let stackedAlignment: HorizontalAlignment
    let spacing: CGFloat?
    let content: Content
    @Environment(\.dynamicTypeSize) private var dynamicTypeSize

    /// `alignment` and `spacing` for the row; `stackedAlignment` for the column.
    init(
        alignment: VerticalAlignment = .center, stackedAlignment: HorizontalAlignment = .leading, spacing: CGFloat? = nil,
        @ViewBuilder content: () -> Content
    ) {
        self.alignment = alignment
        self.stackedAlignment = stackedAlignment
        self.spacing = spacing
        self.content = content()
    }

    var body: some View {
        let layout =
            dynamicTypeSize.isAccessibilitySize
            ? AnyLayout(VStackLayout(alignment: stackedAlignment, spacing: spacing))
            : AnyLayout(HStackLayout(alignment: alignment, spacing: spacing))
        layout { content }
    }
}

extension View {
    /// Posts `text` to VoiceOver each time it changes to a new sentence (a payment's stage, a
    /// part scanned). The models write these texts so that they change once per stage, never
    /// per byte or frame, so a person hears each step once.
    func announcesChanges(_ text: String?) -> some View {
        onChange(of: text) { _, new in
            if let new { AccessibilityNotification.Announcement(new).post() }
        }
    }
}
