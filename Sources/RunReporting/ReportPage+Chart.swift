import Foundation

extension ReportPage {
    static let width = 1000.0, height = 220.0, left = 60.0, right = 150.0, top = 10.0, bottom = 30.0

    /// One chart as a `<figure>` with an inline SVG line chart.
    static func render(_ chart: Chart, duration: Double) -> String {
        let plotW = width - left - right, plotH = height - top - bottom
        let maxX = max(duration, 1)
        let maxY = niceCeiling(chart.lines.flatMap { $0.points.map(\.y) }.max() ?? 0)
        func x(_ v: Double) -> String { String(format: "%.1f", left + plotW * v / maxX) }
        func y(_ v: Double) -> String { String(format: "%.1f", top + plotH * (1 - v / maxY)) }
        var svg = """
            <figure class="chart" data-series="\(chart.id)"><figcaption>\(escape(chart.title))</figcaption>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(escape(chart.title))">

            """
        for k in 0...4 {
            let v = maxY * Double(k) / 4
            svg += "<line x1=\"\(Int(left))\" x2=\"\(Int(left + plotW))\" y1=\"\(y(v))\" y2=\"\(y(v))\" stroke=\"#e3e3e3\"/>"
            svg += "<text x=\"\(Int(left - 6))\" y=\"\(y(v))\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"middle\">\(label(v))</text>\n"
        }
        svg += "<text x=\"\(Int(left))\" y=\"\(Int(height - 8))\" font-size=\"11\">0 s</text>"
        svg += "<text x=\"\(Int(left + plotW))\" y=\"\(Int(height - 8))\" font-size=\"11\" text-anchor=\"end\">\(label(maxX)) s</text>"
        svg += "<text x=\"\(Int(left + plotW / 2))\" y=\"\(Int(height - 8))\" font-size=\"11\" text-anchor=\"middle\">\(escape(chart.unit))</text>\n"
        for (k, line) in chart.lines.enumerated() {
            let points = line.points.map { "\(x($0.x)),\(y(min($0.y, maxY)))" }.joined(separator: " ")
            if !points.isEmpty {
                svg +=
                    "<polyline class=\"series\" data-name=\"\(escape(line.name))\" fill=\"none\" stroke=\"\(line.color)\" "
                    + "stroke-width=\"2\" points=\"\(points)\"/>\n"
            }
            let ly = top + 14 + Double(k) * 16
            svg += "<rect x=\"\(Int(width - right + 12))\" y=\"\(Int(ly - 9))\" width=\"12\" height=\"12\" fill=\"\(line.color)\"/>"
            svg += "<text class=\"legend\" x=\"\(Int(width - right + 30))\" y=\"\(Int(ly + 1))\">\(escape(line.name))</text>\n"
        }
        svg += "</svg></figure>\n"
        return svg
    }

    /// The smallest of 1, 2, 5 x 10^k at or above `v` (at least 1).
    static func niceCeiling(_ v: Double) -> Double {
        guard v > 1 else { return 1 }
        let magnitude = pow(10, floor(log10(v)))
        for step in [1.0, 2, 5, 10] where step * magnitude >= v { return step * magnitude }
        return 10 * magnitude
    }

    /// A short axis label: 12, 1.5, 12k, 3.4M.
    static func label(_ v: Double) -> String {
        switch v {
        case 1_000_000...: return String(format: "%.1fM", v / 1_000_000)
        case 10_000...: return String(format: "%.0fk", v / 1000)
        case 1000...: return String(format: "%.1fk", v / 1000)
        case _ where v == v.rounded(): return String(format: "%.0f", v)
        default: return String(format: "%.1f", v)
        }
    }

    /// The problem batches as a table, or a line saying there were none.
    static func problemTable(_ report: RunReport) -> String {
        let problems = report.batches.problems
        guard !problems.isEmpty else { return "<h2>Problem batches</h2><p>None: every batch was delivered on its first attempt.</p>\n" }
        var html = "<h2>Problem batches</h2>\n"
        if let summary = report.batches.problemSummary { html += "<p>\(escape(summary))</p>\n" }
        html += "<table><thead><tr><th>batch</th><th>lane</th><th>events</th><th>lines</th><th>attempts</th><th>outcome</th></tr></thead><tbody>\n"
        for p in problems {
            let lines = p.lines.map { l in
                l.input + ": " + l.ranges.map { $0[0] == $0[1] ? "\($0[0])" : "\($0[0])-\($0[1])" }.joined(separator: ", ")
            }.joined(separator: "; ")
            let attempts = p.attempts.map { a in
                (a.status.map(String.init) ?? a.error ?? "?") + (a.waitMs.map { " (waited \($0) ms)" } ?? "")
            }.joined(separator: " → ")
            var outcome = p.outcome.result
            if let children = p.outcome.children { outcome += " into " + children.map(String.init).joined(separator: ", ") }
            if let reason = p.outcome.reason { outcome += ": \(p.outcome.events ?? 0) \(reason)" }
            html +=
                "<tr><td>\(p.batch)\(p.parent.map { " (from \($0))" } ?? "")</td><td>\(p.lane)</td><td>\(p.events)</td>"
                + "<td>\(escape(lines))</td><td>\(escape(attempts))</td><td>\(escape(outcome))</td></tr>\n"
        }
        html += "</tbody></table>\n"
        if report.batches.problemsOmitted > 0 {
            html += "<p>\(report.batches.problemsOmitted) more in \(escape(report.batches.journal ?? "the batch journal")).</p>\n"
        }
        return html
    }
}
