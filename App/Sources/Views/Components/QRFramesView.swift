import SwiftUI

/// A QR code drawn from the model's frame text; when the message needs several frames it
/// animates through them (the model's `advance`, every `interval`), with "Part 2 of 5" under it.
/// The payer's scanner collects the frames in any order.
struct QRFramesView: View {
    let frame: String
    let isAnimated: Bool
    let partText: String?
    let accessibilityLabel: String
    let advance: @MainActor () -> Void

    /// Frames per second a phone camera reads reliably.
    static var interval: Duration { .milliseconds(250) }

    var body: some View {
        VStack(spacing: 8) {
            QRCodeImage(text: frame, accessibilityLabel: accessibilityLabel)
                .aspectRatio(1, contentMode: .fit)
                .frame(maxWidth: 320)
                .padding(12)
                .background(RoundedRectangle(cornerRadius: 16).fill(Color.white))
            if let partText {
                Text(partText)
                    .font(.footnote.monospacedDigit())
                    .foregroundStyle(.secondary)
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

/// `QRFramesView` for a list of frames with no model index (Send's payment frames): the frame
/// shown is this view's own state.
struct CyclingQRFramesView: View {
    let frames: [String]
    let accessibilityLabel: String
    @State private var index = 0

    var body: some View {
        if !frames.isEmpty {
            QRFramesView(
                frame: frames[index % frames.count], isAnimated: frames.count > 1,
                partText: frames.count > 1 ? "Part \(index % frames.count + 1) of \(frames.count)" : nil,
                accessibilityLabel: accessibilityLabel,
                advance: { index = (index + 1) % max(1, frames.count) })
        }
    }
}
