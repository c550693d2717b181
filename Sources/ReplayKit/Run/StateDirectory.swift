import Foundation
import ReplayConfiguration

/// The files of one state directory: the identity and checkpoint database, the dead-letter
/// file, the report and the run history, and (for the embedded target) the collected events.
package struct StateDirectory: Sendable {
    package let path: String
    /// The destination this run sends to (``CheckpointDestination``, encoded): stored with the
    /// first checkpoint after an event was delivered.
    var destination: String?

    package init(path: String) throws {
        self.path = path
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw UsageError("cannot create the state directory \(path): \(error.localizedDescription)")
        }
    }

    package var deadLetterPath: String { Self.deadLetterPath(in: path) }
    /// The dead-letter file of the state directory `path` (rotated files sit next to it).
    static func deadLetterPath(in path: String) -> String { path + "/dead-letter.ndjson" }
    var reportPath: String { path + "/report.json" }
    /// The picture of the last run.
    var pagePath: String { path + "/report.html" }
    /// The problem batches of every run, one JSON object per line.
    var journalPath: String { path + "/batches.ndjson" }
    /// What the embedded collector appends to.
    var collectedPath: String { Self.collectedPath(in: path) }
    /// The embedded collector's file in the state directory `path`.
    static func collectedPath(in path: String) -> String { path + "/collected.ndjson" }
    /// A read-only copy of the checkpoint for `mr-replay status` and people; the authoritative
    /// copy lives in `identity.sqlite`, committed together with the learned identities.
    var checkpointMirrorPath: String { path + "/checkpoint.json" }
}
