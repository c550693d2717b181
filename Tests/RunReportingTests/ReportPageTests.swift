import Foundation
import Testing

@testable import RunReporting

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `report.html`: well-formed, one chart per series, the problem batches under the charts.
@Suite struct ReportPageTests {
    /// Collects the `data-series` of every chart and counts polylines and table rows.
    final class PageReader: NSObject, XMLParserDelegate {
        var series: [String] = []
        var polylines: [String: Int] = [:]
        var rows = 0
        var current: String?
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if name == "figure", let s = attributes["data-series"] {
                series.append(s)
                current = s
            }
            if name == "polyline", let current { polylines[current, default: 0] += 1 }
            if name == "tr" { rows += 1 }
        }
    }

    static func sampleRun() -> (RunReport, RunTimeline) {
        var timeline = RunTimeline()
        for s in 0...20 {
            var sample = RunTimeline.Sample(seconds: Double(s), delivered: s * 1000, retries: s / 4, bytesRead: Int64(s * 50))
            sample.bytesTotal = 1000
            sample.responses = ["200": s * 10, "503": s / 3]
            timeline.add(sample)
        }
        var report = RunReport()
        report.startedAt = "2026-11-23T10:00:00.000Z"
        report.batches.problems = [
            BatchJournalTests.problem(batch: 4, statuses: [503, 200], outcome: .init(result: "delivered")),
            BatchJournalTests.problem(
                batch: 9, statuses: [400], outcome: .init(result: "gave_up", reason: "rejected_400", events: 1), events: 1),
        ]
        report.batches.problemSummary = "retried 1 batch (503 x1, 400 x1); 1 batch gave up 1 event (rejected_400)"
        return (report, timeline)
    }

    @Test func pageParsesWithOneChartPerSeriesAndTheProblemTable() throws {
        let (report, timeline) = Self.sampleRun()
        let html = ReportPage.render(report: report, timeline: timeline)
        let body = html.replacingOccurrences(of: "<!DOCTYPE html>\n", with: "")
        let parser = XMLParser(data: Data(body.utf8))
        let reader = PageReader()
        parser.delegate = reader
        #expect(parser.parse(), "well-formed: \(String(describing: parser.parserError))")
        #expect(reader.series == ["delivered", "responses", "retries", "progress"])
        #expect(reader.polylines["responses"] == 2, "one line per status")
        #expect(reader.polylines["delivered"] == 2)
        #expect(reader.rows == 3, "a header and one row per problem batch")
        #expect(!html.contains("<script"), "no scripts")
        #expect(html.contains("rejected_400"))
    }

    @Test func textIsEscaped() {
        var report = RunReport()
        report.destination = "<b>&\"x\""
        let html = ReportPage.render(report: report, timeline: RunTimeline())
        #expect(html.contains("&lt;b&gt;&amp;&quot;x&quot;"))
        #expect(!html.contains("<b>&"))
    }
}
