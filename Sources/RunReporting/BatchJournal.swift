import Foundation
import SystemIO

/// Appends the run's problem batches to `<state_dir>/batches.ndjson` as they end, and keeps the
/// first ``reportCap`` of them (and the counts of all) for the report.
///
/// A clean run writes nothing: the file is created with the first problem. It is an
/// ``AppendOnlyFile``: each record is one write of a whole line, so a process killed at any point
/// leaves a journal of whole lines; a line cut short by a full disk is cut away when the next run
/// opens the file.
/// The journal keeps the batches of every run, each record naming its run.
package struct BatchJournal: ~Copyable {
    /// How many problem batches the report lists; the rest are counted.
    package static let reportCap = 100

    /// The journal file (nil: the problems are kept for the report only).
    package let path: String?
    /// The first problems of this run.
    package private(set) var kept: [BatchProblem] = []
    /// Problems of this run beyond ``kept``.
    package private(set) var omitted = 0
    /// Counts over every problem of this run.
    package private(set) var tally = ProblemTally()
    /// Why the journal could not be written, if it could not (the run goes on; the report says so).
    package private(set) var failure: String?
    private var file: AppendOnlyFile?

    /// A journal at `path`; nothing is opened until the first problem.
    package init(path: String?) { self.path = path }

    /// Records `problem`: appended to the file, kept or counted for the report.
    package mutating func append(_ problem: BatchProblem) {
        tally.add(problem)
        if kept.count < Self.reportCap { kept.append(problem) } else { omitted += 1 }
        guard failure == nil, let path else { return }
        do {
            if file == nil { file = try AppendOnlyFile(path: path, start: .cutPartialLine) }
            var line = try Self.encoder.encode(problem)
            line.append(0x0A)
            try file?.append(Array(line))
        } catch {
            failure = "cannot write the batch journal \(path): \(error)"
        }
    }

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
}
