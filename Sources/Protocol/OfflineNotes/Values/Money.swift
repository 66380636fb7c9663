/// Seconds since the Unix epoch (UTC). Every time in the protocol is one of these.
public typealias Timestamp = UInt64

/// An ISO 4217 alphabetic code: three ASCII capital letters.
public struct Currency: Hashable, Sendable, CustomStringConvertible, Codable {
    public let code: String

    /// Fails unless `code` is exactly three letters A–Z.
    public init?(_ code: String) {
        let bytes = Array(code.utf8)
        guard bytes.count == 3, bytes.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        self.code = code
    }

    init(wire bytes: [UInt8]) throws(VerificationError) {
        guard bytes.count == 3, bytes.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            throw .malformed("currency must be three ASCII capital letters")
        }
        self.code = String(decoding: bytes, as: UTF8.self)
    }

    var wire: [UInt8] { Array(code.utf8) }
    public var description: String { code }

    /// Digits after the decimal point (ISO 4217 minor unit); 2 for codes not in the table.
    public var minorUnitDigits: Int {
        switch code {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND",
            "VUV", "XAF", "XOF", "XPF":
            return 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
            return 3
        default:
            return 2
        }
    }
}

/// Amount rules shared by every component (docs/design.md §2.1): integers in minor units.
public enum Amount {
    /// The largest amount and the largest sum the protocol accepts: 2^63 − 1, so that every
    /// amount fits a signed 64-bit database column (SQLite INTEGER, PostgreSQL BIGINT).
    public static let max: UInt64 = UInt64(Int64.max)

    /// Sums amounts, failing on any overflow past `Amount.max`.
    public static func sum(_ amounts: some Sequence<UInt64>) -> UInt64? {
        var total: UInt64 = 0
        for a in amounts {
            let (s, overflow) = total.addingReportingOverflow(a)
            guard !overflow, s <= max else { return nil }
            total = s
        }
        return total
    }

    /// Formats minor units as a decimal string, e.g. 12345 EUR → "123.45".
    public static func format(_ minor: UInt64, currency: Currency) -> String {
        let digits = currency.minorUnitDigits
        guard digits > 0 else { return String(minor) }
        var divisor: UInt64 = 1
        for _ in 0..<digits { divisor *= 10 }
        let whole = minor / divisor
        let frac = String(minor % divisor)
        return "\(whole).\(String(repeating: "0", count: digits - frac.count))\(frac)"
    }

    /// Parses "12", "12.5" or "12.50" into minor units without floating point.
    /// Returns nil for more fraction digits than the currency has, signs, or overflow.
    public static func parse(_ text: String, currency: Currency) -> UInt64? {
        let digits = currency.minorUnitDigits
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let wholeText = parts[0]
        let fracText = parts.count == 2 ? parts[1] : ""
        guard !wholeText.isEmpty, wholeText.allSatisfy(\.isASCIIDigit),
            fracText.allSatisfy(\.isASCIIDigit), fracText.count <= digits,
            parts.count == 1 || !fracText.isEmpty
        else { return nil }
        var value: UInt64 = 0
        for ch in wholeText + fracText + String(repeating: "0", count: digits - fracText.count) {
            guard let d = ch.wholeNumberValue else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(d))
            guard !o1, !o2, s <= max else { return nil }
            value = s
        }
        return value
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
