#if canImport(CQREncode) && canImport(CZBar) && canImport(CPNG)
import CPNG
import CQREncode
import CZBar
import Foundation

/// QR symbols on Linux: encoded with libqrencode, written and read as PNG with libpng, and
/// decoded with zbar (the app uses CoreImage and AVFoundation instead).
///
/// Text goes in as given; our payloads are `QRFrames` text, all QR-alphanumeric characters, so
/// libqrencode picks alphanumeric mode and zbar's text mode returns them unchanged.
public struct QRSymbol: Sendable {
    public enum ErrorCorrection: Sendable {
        case low, medium, quartile, high
        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// QR version 1–40 (the symbol is 17 + 4 × version modules wide).
    public let version: Int
    /// Modules per side.
    public let size: Int
    /// Row-major; true is a dark module.
    public let modules: [Bool]

    /// Encodes `text` at the smallest version that holds it.
    public init(_ text: String, correction: ErrorCorrection = .medium) throws(QRImageError) {
        guard let code = QRcode_encodeString(text, 0, correction.level, QR_MODE_8, 1) else {
            throw .tooLarge(characters: text.utf8.count)
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        version = Int(code.pointee.version)
        size = width
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    /// 8-bit grayscale pixels with a 4-module quiet zone, `scale` pixels per module.
    public func pixels(scale: Int = 4) -> (width: Int, pixels: [UInt8]) {
        let quiet = 4
        let side = (size + 2 * quiet) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where modules[y * size + x] {
                for dy in 0..<scale {
                    let row = ((y + quiet) * scale + dy) * side
                    for dx in 0..<scale { pixels[row + (x + quiet) * scale + dx] = 0 }
                }
            }
        }
        return (side, pixels)
    }

    /// Writes the symbol as a grayscale PNG.
    public func writePNG(to path: String, scale: Int = 4) throws(QRImageError) {
        let (side, pixels) = pixels(scale: scale)
        try PNGFile.write(gray: pixels, width: side, height: side, to: path)
    }

    /// Modules of light margin around the symbol, as the QR standard requires (ISO/IEC 18004:
    /// 4 modules); scanners need it to find the finder patterns.
    public static let quietZone = 4

    /// Terminal colours set explicitly, so the code reads the same on light and dark themes:
    /// xterm-256 colours 16 (black, #000000) and 231 (white, #ffffff) are fixed RGB values that
    /// themes do not remap, unlike the 16 basic colours (a dark theme's "white" background may be
    /// grey, its "black" foreground blue-grey).
    public static let terminalColours = "\u{1B}[38;5;16;48;5;231m"
    public static let terminalReset = "\u{1B}[0m"

    /// The symbol drawn for a terminal: two module rows per text line with Unicode half blocks
    /// in black on a white background (both set explicitly), with the 4-module quiet zone. Each
    /// line starts with the colour codes and ends with a reset, so nothing bleeds past the code.
    public func terminalText() -> String {
        let quiet = Self.quietZone
        var out = ""
        for y in stride(from: -quiet, to: size + quiet, by: 2) {
            out += Self.terminalColours
            for x in -quiet..<(size + quiet) {
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (false, false): out += " "
                case (true, false): out += "▀"
                case (false, true): out += "▄"
                case (true, true): out += "█"
                }
            }
            out += Self.terminalReset + "\n"
        }
        return out
    }
}

public enum QRImageError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(characters: Int)
    case cannotWrite(path: String, reason: String)
    case cannotRead(path: String, reason: String)
    case noSymbol(path: String)

    public var description: String {
        switch self {
        case .tooLarge(let n): "\(n) characters do not fit one QR code."
        case .cannotWrite(let path, let reason): "Could not write \(path): \(reason)."
        case .cannotRead(let path, let reason): "Could not read \(path) as a PNG image: \(reason)."
        case .noSymbol(let path): "No QR code was found in \(path). Check the file, or scan it again."
        }
    }
}

/// libpng's simplified API for 8-bit grayscale images.
public enum PNGFile {
    public static func write(gray pixels: [UInt8], width: Int, height: Int, to path: String) throws(QRImageError) {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = png_uint_32(PNG_FORMAT_GRAY)
        let ok = pixels.withUnsafeBytes { png_image_write_to_file(&image, path, 0, $0.baseAddress, Int32(width), nil) }
        defer { png_image_free(&image) }
        guard ok != 0 else { throw .cannotWrite(path: path, reason: message(image)) }
    }

    public static func readGray(_ path: String) throws(QRImageError) -> (width: Int, height: Int, pixels: [UInt8]) {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            let reason = message(image)
            png_image_free(&image)
            throw .cannotRead(path: path, reason: reason)
        }
        image.format = png_uint_32(PNG_FORMAT_GRAY)
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0, width * height <= 64 << 20 else {
            png_image_free(&image)
            throw .cannotRead(path: path, reason: "image of \(width)×\(height) pixels")
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let ok = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(width), nil) }
        defer { png_image_free(&image) }
        guard ok != 0 else { throw .cannotRead(path: path, reason: message(image)) }
        return (width, height, pixels)
    }

    private static func message(_ image: png_image) -> String {
        var copy = image.message
        return withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}

/// Finds and decodes the QR codes in an image with zbar.
public enum QRScanner {
    /// Every QR symbol's text in a grayscale image.
    public static func scan(gray pixels: [UInt8], width: Int, height: Int) -> [String] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        // "Y800": 8-bit grayscale.
        let y800 =
            UInt(UInt8(ascii: "Y")) | UInt(UInt8(ascii: "8")) << 8 | UInt(UInt8(ascii: "0")) << 16 | UInt(UInt8(ascii: "0")) << 24
        zbar_image_set_format(image, y800)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        return pixels.withUnsafeBytes { raw -> [String] in
            zbar_image_set_data(image, raw.baseAddress, UInt(raw.count), nil)
            defer { zbar_image_set_data(image, nil, 0, nil) }
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var texts: [String] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                if let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    texts.append(String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self))
                }
                symbol = zbar_symbol_next(current)
            }
            return texts
        }
    }

    /// Every QR symbol's text in a PNG file.
    public static func scan(pngAt path: String) throws(QRImageError) -> [String] {
        let image = try PNGFile.readGray(path)
        let texts = scan(gray: image.pixels, width: image.width, height: image.height)
        guard !texts.isEmpty else { throw .noSymbol(path: path) }
        return texts
    }
}
#endif
