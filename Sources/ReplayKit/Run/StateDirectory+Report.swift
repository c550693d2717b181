import Foundation
@_spi(PerLine) import MetaRouterDelivery
import RunReporting
import SystemIO

/// The reports of a state directory: `report.json`, `report.html` and the run history.
extension StateDirectory {
    /// The reports of past runs, `reports/`.
    func history(keep: Int) -> RunHistory { RunHistory(stateDirectory: path, keep: keep) }

    /// Writes the report's copy in the run history (pruned to `keep`), then `report.json`, each
    /// atomically. A history that cannot be written or pruned is a warning in `report.json`;
    /// only a `report.json` that cannot be written throws.
    func writeReport(_ report: inout RunReport, keep: Int) throws {
        do {
            try history(keep: keep).record(report, bytes: [UInt8](try report.encoded()) + [0x0A])
        } catch {
            report.warnings.append("cannot write the run history in \(history(keep: keep).directory): \(error)")
        }
        try LocalFileSystem().writeAtomically(reportPath, [UInt8](try report.encoded()) + [0x0A])
    }

    /// Writes `report.html` (atomically).
    func writePage(_ html: String) throws {
        try LocalFileSystem().writeAtomically(pagePath, Array(html.utf8))
    }
}
