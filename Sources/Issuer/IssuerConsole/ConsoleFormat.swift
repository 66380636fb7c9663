import Foundation
import OfflineNotes

/// How the console shows values. Everything is text here; the templates escape it.
enum ConsoleFormat {
    /// Minor units as money with its currency: 250 → "2.50 EUR", -2000 → "-20.00 EUR".
    static func money(_ minor: Int64, _ currency: Currency) -> String {
        (minor < 0 ? "-" : "") + Amount.format(minor.magnitude, currency: currency) + " " + currency.code
    }

    static func money(_ minor: UInt64, _ currency: Currency) -> String { money(Int64(clamping: minor), currency) }

    /// Unix seconds as UTC, "2026-11-24 09:15:02 UTC" (ISO 8601, no locale).
    static func time(_ seconds: Int64) -> String {
        let text = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(Self.iso)
        return (text.hasSuffix("Z") ? String(text.dropLast()) : text) + " UTC"
    }

    static let iso = Date.ISO8601FormatStyle(dateTimeSeparator: .space, timeZone: TimeZone(secondsFromGMT: 0) ?? .current)

    static func time(_ seconds: UInt64) -> String { time(Int64(clamping: seconds)) }

    /// "2026-11-24" of Unix seconds.
    static func day(_ seconds: Int64) -> String { String(time(seconds).prefix(10)) }

    /// A number of seconds in words: "30 days", "2 hours", "90 seconds".
    static func duration(_ seconds: UInt64) -> String {
        for (unit, size) in [("day", UInt64(86_400)), ("hour", 3_600), ("minute", 60)]
        where seconds >= size && seconds % size == 0 {
            let n = seconds / size
            return "\(n) \(unit)\(n == 1 ? "" : "s")"
        }
        return "\(seconds) second\(seconds == 1 ? "" : "s")"
    }
}
