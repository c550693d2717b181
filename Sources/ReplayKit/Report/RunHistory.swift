import Foundation
@_spi(PerLine) import MetaRouter

/// The reports of past runs: `<state_dir>/reports/<start>-<run id>.json`, one per run, with the
/// same content as that run's `report.json`, pruned to the newest ``keep``.
///
/// File names sort in start order: the start is UTC to the second (`20261123T191500Z`), and the
/// run id tells apart runs that started in the same second.
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

    /// `20261123T191500Z-3f9a2c1b.json` for a run that started at `2026-11-23T19:15:00.123Z`.
    package static func fileName(startedAt: String, runId: String) -> String {
        let compact = startedAt.prefix(19).filter { $0 != "-" && $0 != ":" }
        return "\(compact.isEmpty ? "unknown" : compact + "Z")-\(runId.isEmpty ? "norunid" : runId).json"
    }

    /// Whether `name` is a history file (anything else in the directory is left alone).
    package static func isReportFile(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 22, name.hasSuffix(".json"), bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
            bytes[16] == UInt8(ascii: "-")
        else { return false }
        let digits = bytes[0..<8] + bytes[9..<15]
        return digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
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

    /// Writes `report` (already encoded as `bytes`) as its history file, atomically, then removes
    /// the oldest files beyond ``keep``. Returns the path written, or nil when ``keep`` is 0.
    @discardableResult
    package func record(_ report: RunReport, bytes: [UInt8], fileSystem: some FileSystem = LocalFileSystem()) throws
        -> String?
    {
        guard keep > 0 else { return nil }
        let path = directory + "/" + Self.fileName(startedAt: report.startedAt, runId: report.runId)
        try fileSystem.writeAtomically(path, bytes)
        try prune(fileSystem: fileSystem)
        return path
    }

    /// Removes the oldest history files beyond ``keep``.
    package func prune(fileSystem: some FileSystem = LocalFileSystem()) throws {
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
