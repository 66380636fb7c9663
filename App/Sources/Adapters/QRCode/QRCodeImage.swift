import SwiftUI

#if canImport(CoreImage) && canImport(UIKit)
import CoreImage
import CoreImage.CIFilterBuiltins
import UIKit

/// One QR code drawn from the text a model gives (a Base45 `OW:` frame; an animated request
/// passes each frame in turn). CoreImage's `CIQRCodeGenerator` at error-correction level M —
/// 15 % of the code may be unreadable (glare, a crack in the screen) and it still scans, while
/// the largest frame (600 characters) stays a code a phone camera reads from a screen.
///
/// Crisp at any size: the generator's output (one pixel per module) is scaled up by a whole
/// number before it becomes a bitmap, and SwiftUI scales it with interpolation off, so module
/// edges never blur into grey (which cameras misread). A quiet zone of white is kept around it.
struct QRCodeImage: View {
    let text: String
    let accessibilityLabel: String

    init(text: String, accessibilityLabel: String) {
        self.text = text
        self.accessibilityLabel = accessibilityLabel
    }

    var body: some View {
        if let image = Self.render(text) {
            Image(uiImage: image)
                .interpolation(.none)
                .resizable()
                .scaledToFit()
                .padding(16)
                // White in dark mode too: cameras need dark modules on a light background.
                .background(Color.white)
                .accessibilityElement()
                .accessibilityLabel(Text(accessibilityLabel))
                .accessibilityAddTraits(.isImage)
        } else {
            Text("This code could not be drawn. Copy its text instead.")
        }
    }

    /// Module pixels per QR module before SwiftUI's own (non-interpolating) scaling.
    private static let modulePixels: CGFloat = 8

    /// One context for every code: creating a CIContext is expensive. Main-actor isolated
    /// like the view that uses it.
    @MainActor private static let context = CIContext()

    @MainActor
    private static func render(_ text: String) -> UIImage? {
        let filter = CIFilter.qrCodeGenerator()
        filter.message = Data(text.utf8)
        filter.correctionLevel = "M"
        guard let output = filter.outputImage else { return nil }
        let scaled = output.transformed(by: CGAffineTransform(scaleX: modulePixels, y: modulePixels))
        guard let cgImage = context.createCGImage(scaled, from: scaled.extent) else { return nil }
        return UIImage(cgImage: cgImage)
    }
}

#else

/// Stand-in where CoreImage or UIKit is missing (Linux's `scripts/check-app`): same
/// signature, so the views that show codes type-check; never shipped.
struct QRCodeImage: View {
    let text: String
    let accessibilityLabel: String

    init(text: String, accessibilityLabel: String) {
        self.text = text
        self.accessibilityLabel = accessibilityLabel
    }

    var body: some View {
        Text(text)
    }
}
#endif
