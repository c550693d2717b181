import Foundation
@_spi(PerLine) import MetaRouterDelivery
import SystemIO

/// The reports of past runs: `<state_dir>/reports/<start>-<run id>.json`, one per run, with the
/// same content as that run's `report.json`, pruned to the newest ``keep``.
///
/// File names sort in start order: the start is UTC in ISO 8601's basic format, to the
/// millisecond (`20261123T191500.123Z`), and the run id tells apart runs that started in the same
/// millisecond.
package struct RunHistory: Sendable {
    /// The `reports/` directory.
    package let directory: String
    /// How many reports are kept (`reports.keep`); 0 keeps none.
    package let keep: Int

    /// The history of the state directory at `stateDirectory`.
    package init(stateDirectory: String, keep: Int) {
        directory = stateDirectory + "/reports"
        self.keep = keep
    }

    /// `20261123T191500.123Z-3f9a2c1b.json` for a run that started at `2026-11-23T19:15:00.123Z`.
    package static func fileName(startedAt: String, runId: String) -> String {
        var compact = String(startedAt.prefix(23).filter { $0 != "-" && $0 != ":" && $0 != "Z" })
        if compact.count == 15 { compact += ".000" }  // a start without milliseconds
        return "\(compact)Z-\(runId).json"
    }

    /// Whether `name` is a history file (anything else in the directory is left alone).
    package static func isReportFile(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        guard bytes.count > 26, name.hasSuffix(".json") else { return false }
        return digits(0..<8) && bytes[8] == UInt8(ascii: "T") && digits(9..<15) && bytes[15] == UInt8(ascii: ".")
            && digits(16..<19) && bytes[19] == UInt8(ascii: "Z") && bytes[20] == UInt8(ascii: "-")
    }

    /// A new run id: 8 random lowercase hex digits.
    package static func makeRunId<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let hex = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// ``makeRunId(using:)`` with the system's generator.
    package static func makeRunId() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeRunId(using: &generator)
    }

    /// The history files, oldest first.
    package func files() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter(Self.isReportFile).sorted()
    }

    /// Writes `report` (already encoded as `bytes`) as its history file, atomically (creating
    /// ``directory``), then removes the oldest files beyond ``keep``. Returns the path written,
    /// or nil when ``keep`` is 0.
    @discardableResult
    package func record(_ report: RunReport, bytes: [UInt8], fileSystem: any FileSystem = LocalFileSystem()) throws
        -> String?
    {
        guard keep > 0 else { return nil }
        let path = directory + "/" + Self.fileName(startedAt: report.startedAt, runId: report.runId)
        try fileSystem.createDirectory(directory)
        try fileSystem.writeAtomically(path, bytes)
        try prune(fileSystem: fileSystem)
        return path
    }

    /// Removes the oldest history files beyond ``keep``.
    package func prune(fileSystem: any FileSystem = LocalFileSystem()) throws {
        let all = files()
        for name in all.dropLast(keep) { try fileSystem.remove(directory + "/" + name) }
    }

    /// The newest `count` reports, newest first, each with its file name. Files that cannot be
    /// read are skipped (a report being replaced, or one written by a newer mr-replay).
    package func recent(_ count: Int) -> [(file: String, report: RunReport)] {
        files().reversed().prefix(count).compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                let report = try? JSONDecoder().decode(RunReport.self, from: data)
            else { return nil }
            return (name, report)
        }
    }
}
