import IngestionChecks
import JSONCore
import SegmentAPI

/// The verdict on one decoded `/v1/batch` body.
enum BatchVerdict {
    /// Answer with `status` and a short reason; nothing is accepted.
    case reject(status: Int, reason: String, invalid: Int)
    /// Accept these events (byte ranges of the body); `invalid` were left out.
    case accept(events: [Range<Int>], messageIds: [String?], total: Int, invalid: Int)
}

/// Applies Segment's batch rules (limits, authentication, event validity) to a request body.
struct BatchInspector: Sendable {
    /// The write key events may carry when there is no Basic header.
    let writeKey: String
    /// Reject the whole request when an event is invalid.
    let strict: Bool
    /// Status for limit violations (400 or 413).
    let oversizeStatus: Int

    /// The event types Segment accepts.
    static let knownTypes: Set<String> = ["identify", "track", "page", "screen", "group", "alias"]

    /// Inspects `body` (already decompressed). `authorized` says whether a valid Basic header came with it.
    func inspect(_ body: UnsafeBufferPointer<UInt8>, authorized: Bool) -> BatchVerdict {
        guard let layout = try? ObjectLayout.scanDocument(body) else {
            if !authorized { return .reject(status: 401, reason: "missing or invalid write key", invalid: 0) }
            return .reject(status: 400, reason: "invalid JSON", invalid: 0)
        }
        if !authorized, layout.string("writeKey", in: body) == writeKey {
            return inspectBatch(body, layout, authorized: true)
        }
        return inspectBatch(body, layout, authorized: authorized)
    }

    private func inspectBatch(
        _ body: UnsafeBufferPointer<UInt8>, _ layout: ObjectLayout, authorized: Bool
    ) -> BatchVerdict {
        guard let batch = layout.member("batch", in: body), batch.kind == .array else {
            if !authorized { return .reject(status: 401, reason: "missing or invalid write key", invalid: 0) }
            return .reject(status: 400, reason: "the body has no \"batch\" array", invalid: 0)
        }
        let ranges = BatchSplitter.elements(body, array: batch.value)
        var layouts: [ObjectLayout?] = []
        if !authorized {
            // Authentication by a writeKey on every event.
            guard !ranges.isEmpty else { return .reject(status: 401, reason: "missing or invalid write key", invalid: 0) }
            layouts.reserveCapacity(ranges.count)
            for r in ranges {
                let event = ObjectLayout.scanNested(body, r)
                guard let event, event.string("writeKey", in: body) == writeKey else {
                    return .reject(status: 401, reason: "missing or invalid write key", invalid: 0)
                }
                layouts.append(event)
            }
        }
        if ranges.count > SegmentLimits.maxBatchEvents {
            return .reject(status: oversizeStatus, reason: "more than \(SegmentLimits.maxBatchEvents) events", invalid: 0)
        }
        for r in ranges where r.count > SegmentLimits.maxEventBytes {
            return .reject(status: oversizeStatus, reason: "an event is over 32 KiB", invalid: 0)
        }
        var accepted: [Range<Int>] = []
        var ids: [String?] = []
        accepted.reserveCapacity(ranges.count)
        ids.reserveCapacity(ranges.count)
        var invalid = 0
        for (i, r) in ranges.enumerated() {
            let event = layouts.isEmpty ? ObjectLayout.scanNested(body, r) : layouts[i]
            guard let event, Self.isValid(event, body) else {
                invalid += 1
                continue
            }
            accepted.append(r)
            ids.append(event.string("messageId", in: body))
        }
        if strict, invalid > 0 {
            return .reject(status: 400, reason: "\(invalid) invalid event(s)", invalid: invalid)
        }
        return .accept(events: accepted, messageIds: ids, total: ranges.count, invalid: invalid)
    }

    /// Segment's minimal event rules: a known `type`, a `userId` or `anonymousId`, and an `event` name on tracks.
    static func isValid(_ event: ObjectLayout, _ body: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let type = event.string("type", in: body), knownTypes.contains(type) else { return false }
        guard hasIdentity(event, "userId", body) || hasIdentity(event, "anonymousId", body) else { return false }
        if type == "track" {
            guard let name = event.string("event", in: body), !name.isEmpty else { return false }
        }
        return true
    }

    /// An identity is present when it is a non-empty string or a number.
    private static func hasIdentity(_ event: ObjectLayout, _ key: String, _ body: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let m = event.member(key, in: body) else { return false }
        switch m.kind {
        case .string: return m.value.count > 2
        case .number: return true
        default: return false
        }
    }
}
