import Foundation
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration

/// A snapshot that cannot be replayed: a version this mr-replay does not read, or no
/// `events` array at all. Nothing of it is sent and its checkpoint does not move.
struct UnsupportedSnapshot: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(path): cannot be replayed: \(reason)" }
}

/// What a first pass over a snapshot found, before any of it is sent.
struct SnapshotSurvey: Sendable {
    /// The reader's summary: version, elements, break.
    var summary: SnapshotReader.Summary
    /// The line number (event index + 1) of the last event whose consent is denied; the events
    /// before it were queued on a device whose user then revoked consent. 0 when none.
    var lastRevocationLine = 0
    /// When the queue was written: the file's modification time (an S3 object's last-modified
    /// time), in epoch ms.
    var writtenAtMillis: Int64?

    /// Reads the snapshot `source` once, start to end.
    static func survey(_ source: InputSource) throws -> SnapshotSurvey {
        let reader = try InputReader(source: source)
        var reading = SnapshotReader(source: try reader.openStream().rawSource)
        var last = 0
        let summary = try reading.walk(onEvent: { element in
            if ConsentRules.verdict(ofEvent: element.bytes) == .denied { last = element.index + 1 }
            return true
        })
        var survey = SnapshotSurvey(summary: summary, lastRevocationLine: last)
        if let object = source.object {
            survey.writtenAtMillis = object.lastModified.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
        } else if let attributes = try? FileManager.default.attributesOfItem(atPath: source.path),
            let modified = attributes[.modificationDate] as? Date
        {
            survey.writtenAtMillis = Int64((modified.timeIntervalSince1970 * 1000).rounded(.down))
        }
        return survey
    }
}

/// What a walk applies to one input beyond the per-event rules: the age limit, and for a
/// snapshot, the purge of events queued before a consent revocation and the events an earlier
/// run already settled.
package struct InputRules: Sendable {
    /// Events whose time is before this (epoch ms) are `expired`.
    var expiryCutoffMillis: Int64?
    /// Lines up to this number are purged by a later consent revocation in the same queue.
    var purgedThroughLine = 0
    /// For a snapshot read again after it was rewritten: the messageIds earlier runs settled.
    var settledMessageIds: Set<String>?
    /// For a resumed NDJSON input: the lines after its checkpoint that earlier runs settled.
    var settledLines: SettledLines?
    /// For a snapshot: what its first pass found.
    var survey: SnapshotSurvey?

    /// The rules for `source`. `runStartMillis` is where an NDJSON input's age limit counts
    /// back from; a snapshot's counts back from when it was written. Throws
    /// ``UnsupportedSnapshot`` for a snapshot that cannot be replayed.
    static func make(for source: InputSource, config: ReplayConfig, runStartMillis: Int64) throws -> InputRules {
        var rules = InputRules()
        let limit = config.inputs.maxEventAge.limit(isSnapshot: source.kind == .snapshot)
        guard source.kind == .snapshot else {
            rules.expiryCutoffMillis = limit.map { runStartMillis - $0 * 1000 }
            return rules
        }
        let survey = try SnapshotSurvey.survey(source)
        if let reason = survey.summary.unsupportedReason { throw UnsupportedSnapshot(path: source.path, reason: reason) }
        rules.survey = survey
        rules.purgedThroughLine = survey.lastRevocationLine
        rules.expiryCutoffMillis = limit.map { (survey.writtenAtMillis ?? runStartMillis) - $0 * 1000 }
        return rules
    }

    /// The rules of every input, in order; throws ``UnsupportedSnapshot`` for the first snapshot
    /// that cannot be replayed, before anything is read.
    static func plan(_ sources: [InputSource], config: ReplayConfig, runStartMillis: Int64) throws -> [InputRules] {
        try sources.map { try make(for: $0, config: config, runStartMillis: runStartMillis) }
    }

    /// Warnings a person should see about the input before it is read.
    func warnings(for source: InputSource) -> [String] {
        guard let summary = survey?.summary else { return [] }
        var out: [String] = []
        if summary.isDamaged {
            out.append(
                "\(source.path): the snapshot is damaged at byte \(summary.breakOffset!) "
                    + "(\(summary.breakReason ?? "unreadable")): the \(summary.elements) events before it are replayed, "
                    + "the \(summary.tailBytes) bytes after it are dead-lettered as \(DeadLetterReason.damagedSnapshot)")
            if case .missing = summary.version {
                out.append("\(source.path): its \"version\" stood after the damage; it is read as version 1")
            }
        }
        if purgedThroughLine > 1 {
            out.append(
                "\(source.path): event \(purgedThroughLine) revokes consent, so the \(purgedThroughLine - 1) events "
                    + "queued before it are purged (consent_dropped), as the SDK would have")
        }
        return out
    }
}
