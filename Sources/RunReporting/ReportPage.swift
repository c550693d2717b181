import Foundation

/// `report.html`: one self-contained page (inline SVG and CSS, no scripts) that shows a run over
/// time, with the problem batches under the charts.
///
/// The markup is well-formed XML (void elements closed, text escaped), so it reads the same in a
/// browser and in an XML parser.
package enum ReportPage {
    /// One chart: a title, an id (`data-series`) and its lines.
    struct Chart {
        var id: String
        var title: String
        var unit: String
        var lines: [(name: String, color: String, points: [(x: Double, y: Double)])]
    }

    /// The colours of the lines, in order; tests look for them in a screenshot.
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    /// The page for `report`, its `timeline`, and its problem batches.
    package static func render(report: RunReport, timeline: RunTimeline) -> String {
        let charts = self.charts(timeline)
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/><title>mr-replay run \(escape(report.startedAt))</title>
            <style>\(style)</style></head><body>
            <h1>mr-replay run: \(escape(report.status.rawValue))</h1>
            <p class="facts">\(escape(facts(report)))</p>

            """
        for chart in charts { html += render(chart, duration: timeline.samples.last?.seconds ?? 0) }
        html += problemTable(report)
        html += "</body></html>\n"
        return html
    }

    /// The four charts of a run.
    static func charts(_ t: RunTimeline) -> [Chart] {
        let statuses = t.statuses
        return [
            Chart(
                id: "delivered", title: "Events delivered per second", unit: "events/s",
                lines: [
                    ("delivered", palette[0], t.rate { $0.delivered }),
                    ("dead-lettered", palette[1], t.rate { $0.deadLettered }),
                ]),
            Chart(
                id: "responses", title: "Responses by status, per second", unit: "responses/s",
                lines: statuses.enumerated().map { k, status in
                    (status, palette[k % palette.count], t.rate { $0.responses[status] ?? 0 })
                }),
            Chart(
                id: "retries", title: "Retries, breaker openings and rate-limit waits, per second", unit: "per s",
                lines: [
                    ("retries", palette[3], t.rate { $0.retries }),
                    ("breaker openings", palette[1], t.rate { $0.breakerOpened }),
                    ("rate-limit waits", palette[4], t.rate { $0.rateLimitWaits }),
                ]),
            Chart(
                id: "progress", title: "Input progress", unit: "% of bytes read",
                lines: [
                    (
                        "read", palette[2],
                        t.samples.map { s in
                            (s.seconds, s.bytesTotal > 0 ? 100 * Double(min(s.bytesRead, s.bytesTotal)) / Double(s.bytesTotal) : 0)
                        }
                    )
                ]),
        ]
    }

    /// The one-line facts under the title.
    static func facts(_ r: RunReport) -> String {
        "started \(r.startedAt), \(String(format: "%.1f", r.durationSeconds)) s; \(r.events.read) read, "
            + "\(r.events.delivered) delivered, \(r.events.deadLettered) dead-lettered, \(r.events.pending) pending; "
            + "\(r.batches.sent) requests, \(r.batches.retried) retried, \(r.batches.split) split; "
            + "destination \(r.destination)"
    }

    static let style = """
        body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
        figure{margin:0 0 24px 0}figcaption{font-weight:600;margin-bottom:4px}
        svg{background:#fafafa;border:1px solid #ddd}.legend{font-size:12px}
        table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
        .facts{color:#555}
        """

    /// Escapes text for HTML and XML.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
