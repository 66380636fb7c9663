import IssuerCore
import OfflineNotes

/// A bar chart drawn on the server as inline SVG: no script, no image request, no style
/// attribute (the content security policy allows only the console's style sheet, which styles
/// the classes used here). Every text that goes into it is escaped here.
struct SVGChart {
    let title: String
    /// Label and value of each bar, oldest first, with the text of its tooltip.
    let bars: [(label: String, value: Int64, tooltip: String)]
    /// Shown at the top of the value axis.
    let formatMax: (Int64) -> String

    static let width = 720, height = 200, left = 70, bottom = 28, top = 12

    var svg: String {
        let plotWidth = Self.width - Self.left - 10
        let plotHeight = Self.height - Self.bottom - Self.top
        let maximum = max(1, bars.map(\.value).max() ?? 0)
        let step = bars.isEmpty ? 0 : Double(plotWidth) / Double(bars.count)
        var out = """
            <svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Self.width) \(Self.height)" role="img" aria-label="\(Self.escape(title))">
            <title>\(Self.escape(title))</title>
            <line class="axis" x1="\(Self.left)" y1="\(Self.top + plotHeight)" x2="\(Self.width - 10)" y2="\(Self.top + plotHeight)"/>
            <line class="axis" x1="\(Self.left)" y1="\(Self.top)" x2="\(Self.left)" y2="\(Self.top + plotHeight)"/>
            <text class="tick" x="\(Self.left - 6)" y="\(Self.top + 10)" text-anchor="end">\(Self.escape(formatMax(maximum)))</text>
            <text class="tick" x="\(Self.left - 6)" y="\(Self.top + plotHeight)" text-anchor="end">0</text>

            """
        // Label about eight bars, whatever their number, so the labels never overlap.
        let labelEvery = max(1, bars.count / 8)
        for (i, bar) in bars.enumerated() {
            let h = Int((Double(max(0, bar.value)) / Double(maximum) * Double(plotHeight)).rounded())
            let x = Double(Self.left) + Double(i) * step + step * 0.15
            out +=
                "<rect class=\"bar\" x=\"\(Self.fixed(x))\" y=\"\(Self.top + plotHeight - h)\" width=\"\(Self.fixed(step * 0.7))\" height=\"\(h)\">"
            out += "<title>\(Self.escape(bar.tooltip))</title></rect>\n"
            if i % labelEvery == 0 || i == bars.count - 1 {
                out +=
                    "<text class=\"tick\" x=\"\(Self.fixed(x + step * 0.35))\" y=\"\(Self.height - 8)\" text-anchor=\"middle\">\(Self.escape(bar.label))</text>\n"
            }
        }
        return out + "</svg>"
    }

    static func fixed(_ x: Double) -> String { String(Int((x * 10).rounded())).inserting(decimalBefore: 1) }

    /// XML text and attribute escaping.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension String {
    /// "1234" → "123.4" (a tenths count as a decimal).
    fileprivate func inserting(decimalBefore digits: Int) -> String {
        let negative = hasPrefix("-")
        var body = negative ? String(dropFirst()) : self
        while body.count <= digits { body = "0" + body }
        let cut = body.index(body.endIndex, offsetBy: -digits)
        return (negative ? "-" : "") + body[..<cut] + "." + body[cut...]
    }
}

extension ConsoleSeries {
    /// Bars of counts or of amounts.
    func chart(title: String, amounts: Bool, currency: Currency) -> SVGChart {
        let daily = bucketSeconds >= 86_400
        return SVGChart(
            title: title,
            bars: buckets.map { b in
                let label =
                    daily
                    ? String(ConsoleFormat.day(b.start).dropFirst(5))
                    : String(ConsoleFormat.time(b.start).dropFirst(11).prefix(5))
                let value = amounts ? b.amount : b.count
                let shown = amounts ? ConsoleFormat.money(b.amount, currency) : "\(b.count)"
                return (label, value, "\(daily ? ConsoleFormat.day(b.start) : ConsoleFormat.time(b.start)): \(shown)")
            },
            formatMax: { amounts ? ConsoleFormat.money($0, currency) : "\($0)" })
    }
}
