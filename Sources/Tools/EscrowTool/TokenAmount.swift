import Ethereum

/// Token amounts: exact integers of the token's smallest unit, written in decimal with the
/// token's `decimals` fraction digits (the wallet's EUR token has 2: "12.34" is 1234 units).
/// No floating point anywhere, so what is typed is what is sent, to the unit.
enum TokenAmount {
    /// Parses "12", "12.3" or "12.34" (at most `decimals` fraction digits; no sign, exponent,
    /// spaces or grouping) into token units.
    static func parse(_ text: String, decimals: Int) throws(EscrowToolError) -> UInt128 {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty,
            whole.allSatisfy(\.isASCIIDigit),
            parts.count == 1 || (!parts[1].isEmpty && parts[1].allSatisfy(\.isASCIIDigit))
        else { throw .invalidAmount(text, decimals: decimals) }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= decimals else { throw .invalidAmount(text, decimals: decimals) }
        var units: UInt128 = 0
        // The whole part, then the fraction padded to `decimals` digits: 12.3 with 2 → 1230.
        for digit in Array(whole.utf8) + Array(fraction.utf8)
            + Array(repeating: UInt8(ascii: "0"), count: decimals - fraction.count)
        {
            let (times10, overflow1) = units.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt128(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .amountTooLarge(text) }
            units = sum
        }
        return units
    }

    /// Formats units with `decimals` fraction digits: 1234 with 2 → "12.34", 5 → "0.05".
    static func format(_ units: UInt128, decimals: Int) -> String {
        format(digits: String(units), decimals: decimals)
    }

    /// Formats any uint256 (a 32-byte big-endian ABI word) the same way.
    static func format(word: [UInt8], decimals: Int) -> String {
        format(digits: ABI.decimalString(word), decimals: decimals)
    }

    private static func format(digits: String, decimals: Int) -> String {
        guard decimals > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let split = padded.index(padded.endIndex, offsetBy: -decimals)
        return "\(padded[..<split]).\(padded[split...])"
    }

    /// A 32-byte word as UInt128, or nil if it is larger.
    static func units(word: [UInt8]) -> UInt128? { try? ABI.decodeUInt128(word) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
