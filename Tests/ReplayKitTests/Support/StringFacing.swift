import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit

// The String-facing forms of the hot path's byte APIs, for tests: each event copied out of
// the render buffer, ids as Strings.

/// An enriched event as tests look at it: its bytes, and the ordering key read back from them
/// (every rendered event has its final anonymousId).
struct EnrichedEvent: Equatable, Sendable {
    var bytes: [UInt8]
    var orderingKey: String?

    /// The event rendered at `range` of `rendered`.
    init(_ event: RenderedEvent, rendered: [UInt8]) {
        bytes = Array(rendered[event.range])
        orderingKey = bytes.withUnsafeBufferPointer { buf in
            (try? ObjectLayout.scanDocument(buf)).flatMap { IdRef($0.member("anonymousId", in: buf), buf)?.string(buf) }
        }
    }

    init(bytes: [UInt8], orderingKey: String?) {
        self.bytes = bytes
        self.orderingKey = orderingKey
    }
}

/// What became of one line, with the event copied out.
typealias EnrichResult = LineOutcome<EnrichedEvent>

extension Enricher {
    /// Enriches one line (see ``process(_:lineNumber:sequence:into:)``) and copies its event.
    func process(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, sequence: UInt64) -> EnrichResult {
        var out: [UInt8] = []
        return process(line, lineNumber: lineNumber, sequence: sequence, into: &out).map { EnrichedEvent($0, rendered: out) }
    }
}

extension LineWalker {
    /// One walked line with its event copied out.
    struct StringItem {
        let source: InputSource
        let line: InputLine
        let sequence: UInt64
        let result: EnrichResult
        let settledThrough: (offset: UInt64, lineNumber: Int)
    }

    /// ``walkRendered(inputs:config:enricher:output:firstSequence:resumeAt:rules:onWarning:onInputEnd:_:)``
    /// with each event copied out of the buffer.
    @discardableResult
    static func walk(
        inputs: [InputSource], config: ReplayConfig, enricher: Enricher, firstSequence: UInt64 = 1,
        resumeAt: [ResumePoint?] = [], onInputEnd: (Int) throws -> Void = { _ in }, _ body: (StringItem) throws -> Bool
    ) throws -> UInt64 {
        let output = EventBuffer()
        return try walkRendered(
            inputs: inputs, config: config, enricher: enricher, output: output, firstSequence: firstSequence,
            resumeAt: resumeAt, onInputEnd: onInputEnd
        ) { item in
            let result = item.result.map { EnrichedEvent($0, rendered: output.bytes) }
            output.bytes.removeAll(keepingCapacity: true)
            return try body(
                StringItem(
                    source: inputs[item.inputIndex], line: item.line, sequence: item.sequence, result: result, settledThrough: item.settledThrough))
        }
    }
}

extension IdentityStore {
    /// Remembers that `anonymousId` is `userId` (identify / alias), effective for lookups at once.
    func learnUser(anonymousId: String, userId: String, sequence: UInt64) {
        var a = anonymousId, u = userId
        a.withUTF8 { k in u.withUTF8 { v in learnUser(anonymousId: k, userId: v, sequence: sequence) } }
    }

    /// Ends carry-forward for `anonymousId` (a logout event), effective for lookups at once.
    func forgetUser(anonymousId: String, sequence: UInt64) {
        var a = anonymousId
        a.withUTF8 { forgetUser(anonymousId: $0, sequence: sequence) }
    }

    /// Remembers that `userId` belongs to `groupId` (group), effective for lookups at once.
    func learnGroup(userId: String, groupId: String, sequence: UInt64) {
        var u = userId, g = groupId
        u.withUTF8 { k in g.withUTF8 { v in learnGroup(userId: k, groupId: v, sequence: sequence) } }
    }

    /// The userId known for `anonymousId` (overlay first, then committed rows).
    func userId(forAnonymousId anonymousId: String) throws -> String? {
        var a = anonymousId
        return try a.withUTF8 { try userIdValue(forAnonymousId: $0) }?.string
    }

    /// The groupId known for `userId` (overlay first, then committed rows).
    func groupId(forUserId userId: String) throws -> String? {
        var u = userId
        return try u.withUTF8 { try groupIdValue(forUserId: $0) }?.string
    }
}

extension LineOutcome {
    /// Whether the line became an event.
    var isEvent: Bool {
        if case .event = self { return true }
        return false
    }
}

extension IdentityValue {
    /// The id as a String.
    var string: String { withRaw { String(decoding: $0, as: UTF8.self) } }
}
