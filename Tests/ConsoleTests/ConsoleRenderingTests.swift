import IssuerCore
import OfflineNotes
import Testing

@testable import IssuerConsole

/// The console's own rendering: times, money, the SVG chart and form decoding.
@Suite struct ConsoleRenderingTests {
    @Test func timesAndMoneyAreShownInUTCAndMinorUnits() {
        #expect(ConsoleFormat.time(Int64(0)) == "1970-01-01 00:00:00 UTC")
        #expect(ConsoleFormat.time(Int64(1_795_000_000)) == "2026-11-18 11:06:40 UTC")
        #expect(ConsoleFormat.day(1_795_000_000) == "2026-11-18")
        #expect(ConsoleFormat.money(Int64(-2_000), Currency("EUR")!) == "-20.00 EUR")
        #expect(ConsoleFormat.duration(30 * 86_400) == "30 days")
    }

    /// Bars scale to the largest value; every text in the SVG is escaped; no style attribute
    /// (the content security policy would block it) and no script.
    @Test func chartsAreEscapedSVGWithoutStyleOrScript() {
        let chart = SVGChart(
            title: "<b>\"x\"", bars: [("a", 0, "<t>"), ("b", 5, "five"), ("c", 10, "ten")], formatMax: { "\($0)&" })
        let svg = chart.svg
        #expect(svg.hasPrefix("<svg class=\"chart\""))
        #expect(svg.contains("&lt;b&gt;&quot;x&quot;") && svg.contains("&lt;t&gt;") && svg.contains("10&amp;"))
        #expect(!svg.contains("<b>") && !svg.contains("style=") && !svg.contains("<script"))
        #expect(svg.contains("height=\"160\"") && svg.contains("height=\"80\"") && svg.contains("height=\"0\""))
    }

    @Test func formsDecodePlusAndPercentAndKeepTheFirstValue() {
        let form = Form("reason=a+b%26c&csrf=1&csrf=2&empty=&id=7&bad=-3")
        #expect(form["reason"] == "a b&c")
        #expect(form["csrf"] == "1")
        #expect(form.text("empty") == nil)
        #expect(form.id("id") == 7 && form.id("bad") == nil)
        #expect(ConsoleSecurity.authority(of: "https://Wallet.example.com:443/x") == "wallet.example.com")
        #expect(ConsoleSecurity.authority(of: "http://127.0.0.1:9000") == "127.0.0.1:9000")
        #expect(
            ConsoleSecurity.constantTimeEqual("abc", "abc") && !ConsoleSecurity.constantTimeEqual("abc", "abd")
                && !ConsoleSecurity.constantTimeEqual("", ""))
    }
}
