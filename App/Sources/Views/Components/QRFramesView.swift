import SwiftUI

/// A QR code drawn from the model's frame text; when the message needs several frames it
/// animates through them (the model's `advance`, every `interval`), with "Part 2 of 5" under it.
/// The payer's scanner collects the frames in any order.
///
/// VoiceOver reads the code as one element: its label, and as its value the model's sentence
/// on the part shown and who reads it, which follows the frames without being announced at
/// each one. The frames themselves always change at once, with no transition: a camera needs
/// every frame crisp, and a fade would show it two codes overlaid. Only the part counter
/// animates, and not when the person asked for reduced motion; the frames keep cycling then,
/// because the other phone's camera needs them.
struct QRFramesView: View {
    let frame: String
    let isAnimated: Bool
    let partText: String?
    let accessibilityLabel: String
    let accessibilityValue: String?
    let advance: @MainActor () -> Void
    @Environment(\.accessibilityReduceMotion) private var reduceMotion

    /// Frames per second a phone camera reads reliably.
    static var interval: Duration { .milliseconds(250) }

    var body: some View {
        VStack(spacing: 8) {
            QRCodeImage(text: frame, accessibilityLabel: accessibilityLabel)
                .accessibilityValue(accessibilityValue ?? "")
                .aspectRatio(1, contentMode: .fit)
                .frame(maxWidth: 320)
                .padding(12)
                .background(RoundedRectangle(cornerRadius: 16).fill(Color.white))
            if let partText {
                Text(partText)
                    .font(.footnote.monospacedDigit())
                    .foregroundStyle(.secondary)
                    .contentTransition(reduceMotion ? .identity : .numericText())
                    .animation(reduceMotion ? nil : .default, value: partText)
                    .accessibilityHidden(true)
            }
        }
        .task(id: isAnimated) {
            guard isAnimated else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                advance()
            }
        }
    }
}

/// `QRFramesView` for a list of frames with no model index (Send's payment frames, Receive's
/// receipt): the frame shown is this view's own state, and `accessibilityValue` gives the
/// model's sentence for it (frame index, frame count).
struct CyclingQRFramesView: View {
    let frames: [String]
    let accessibilityLabel: String
    let accessibilityValue: @MainActor (_ index: Int, _ count: Int) -> String
    @State private var index = 0

    var body: some View {
        if !frames.isEmpty {
            QRFramesView(
                frame: frames[index % frames.count], isAnimated: frames.count > 1,
                partText: frames.count > 1 ? "Part \(index % frames.count + 1) of \(frames.count)" : nil,
                accessibilityLabel: accessibilityLabel,
                accessibilityValue: accessibilityValue(index % frames.count, frames.count),
                advance: { index = (index + 1) % max(1, frames.count) })
        }
    }
}
