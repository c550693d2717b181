import JSONCore

@testable import ReplayKit

/// What every enriched event must satisfy, whatever the line held.
enum EventChecks {
    /// The top-level members enrichment may set, replace or remove (`TopLevelEdits`); every other
    /// member of the line must reach the event byte for byte, in its order.
    static let editedKeys: Set<[UInt8]> = Set(
        ["anonymousId", "userId", "groupId", "messageId", "timestamp", "sentAt", "writeKey", "context", "properties", "traits"]
            .map { Array($0.utf8) })

    /// Checks the event rendered from `line` (`event` is an exactly-sized copy of it).
    static func check(
        event: UnsafeBufferPointer<UInt8>, line: UnsafeBufferPointer<UInt8>, laneKey: UInt64, lineNumber: Int, input: [UInt8]
    ) {
        let what = "line \(lineNumber)'s event \(showBytes(event))"
        guard let eventLayout = try? ObjectLayout.scanDocument(event) else {
            fuzzFailure("\(what) is not a valid JSON object", input: input)
        }
        fuzzCheck(eventLayout.range == 0..<event.count, "\(what) has bytes around its object", input: input)
        guard let lineLayout = try? ObjectLayout.scanDocument(line) else {
            fuzzFailure("line \(lineNumber) became an event but is not a JSON object", input: input)
        }
        let kept = untouched(lineLayout, line)
        let stillThere = untouched(eventLayout, event)
        fuzzCheck(
            kept == stillThere, "\(what) does not keep the line's other members byte for byte: \(kept.map { showBytes($0) })",
            input: input)
        for removed in ["sentAt", "writeKey"] {
            fuzzCheck(eventLayout.index(of: removed, in: event) == nil, "\(what) still has \(removed)", input: input)
        }
        guard let anonymousId = IdRef(eventLayout.member("anonymousId", in: event), event) else {
            fuzzFailure("\(what) has no usable anonymousId", input: input)
        }
        fuzzCheck(anonymousId.laneKey(event) == laneKey, "\(what): its lane key is not its anonymousId's", input: input)
        guard let context = eventLayout.member("context", in: event), context.kind == .object else {
            fuzzFailure("\(what) has no context object", input: input)
        }
    }

    /// The spans of the members whose (decoded) key is not one enrichment edits, in order.
    static func untouched(_ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        layout.members.compactMap { m in
            var key = layout.keyString(m, in: buf)
            let edited = key.withUTF8 { editedKeys.contains(Array($0)) }
            return edited ? nil : Array(checkedSlice(buf, m.span))
        }
    }
}
