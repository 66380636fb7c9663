import SwiftUI

// Tap anywhere outside a text field to dismiss the keyboard (APP-SCREENS, "Keyboard and focus"):
// ONE modifier, applied on every screen with text input.
//
// How it avoids the usual traps:
// - A simultaneous gesture, never a plain `onTapGesture` on the container: buttons, toggles,
//   links and rows inside still get their taps, and it works inside scroll views (a scroll
//   drag is not a tap, so scrolling never dismisses).
// - A tap ON a text field must not dismiss it (a container gesture also sees that tap). Fields
//   mark themselves with `.keepsKeyboardOnTap()`; their frames are collected in the modifier's
//   coordinate space (updated while scrolling) and a tap inside one is ignored.
// - VoiceOver: with it running the gesture is switched off (`including: .subviews`), so a
//   double-tap activation of a control only does what that control does; VoiceOver users
//   dismiss with the keyboard toolbar's Done.
// - Hardware keyboards: nothing here touches key events or the responder chain; focus moves
//   only through the form's model, so Tab, Shift-Tab and Return keep working.

/// Frames of the text fields on the screen, in the dismissal modifier's coordinate space.
struct KeyboardFieldFramesKey: PreferenceKey {
    static let defaultValue: [CGRect] = []
    static func reduce(value: inout [CGRect], nextValue: () -> [CGRect]) { value.append(contentsOf: nextValue()) }
}

/// Where the field frames are kept between layout and the tap. A main-actor class, so the
/// preference callback (which SwiftUI may call as `@Sendable`) can hand frames over safely
/// without causing a redraw.
@MainActor
final class KeyboardFieldFrames {
    var frames: [CGRect] = []
}

struct DismissesKeyboardOnTap: ViewModifier {
    /// Clears the form's focus (the model's `focus.clearFocus()`).
    let dismiss: @MainActor () -> Void
    @Environment(\.accessibilityVoiceOverEnabled) private var voiceOverEnabled
    @State private var fields = KeyboardFieldFrames()

    static let space = "dismissesKeyboardOnTap"

    func body(content: Content) -> some View {
        content
            .onPreferenceChange(KeyboardFieldFramesKey.self) { [fields] frames in
                MainActor.assumeIsolated { fields.frames = frames }
            }
            .coordinateSpace(.named(Self.space))
            .simultaneousGesture(
                SpatialTapGesture(coordinateSpace: .named(Self.space))
                    .onEnded { tap in
                        // A little slack around each field: a tap on its edge is meant for it.
                        guard !fields.frames.contains(where: { $0.insetBy(dx: -6, dy: -6).contains(tap.location) }) else {
                            return
                        }
                        dismiss()
                    },
                including: voiceOverEnabled ? .subviews : .all)
    }
}

/// Marks a text field so a tap on it does not count as "outside" (see the file's comment).
struct KeepsKeyboardOnTap: ViewModifier {
    func body(content: Content) -> some View {
        content.background {
            GeometryReader { proxy in
                Color.clear.preference(
                    key: KeyboardFieldFramesKey.self,
                    value: [proxy.frame(in: .named(DismissesKeyboardOnTap.space))])
            }
        }
    }
}

extension View {
    /// A tap anywhere outside the screen's text fields calls `dismiss` — bind it to the form
    /// model's `focus.clearFocus()`, and the keyboard goes away with the focus. Apply once, on
    /// the screen's outermost view (outside its scroll view).
    func dismissesKeyboardOnTap(_ dismiss: @escaping @MainActor () -> Void) -> some View {
        modifier(DismissesKeyboardOnTap(dismiss: dismiss))
    }

    /// Every text field on a screen that uses `dismissesKeyboardOnTap` carries this, so tapping
    /// the field itself keeps the keyboard. (`CurrencyField` and `FormTextField` apply it.)
    func keepsKeyboardOnTap() -> some View {
        modifier(KeepsKeyboardOnTap())
    }
}
