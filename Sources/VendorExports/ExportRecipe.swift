import JSONCore

/// Converts records of one vendor's raw export into Segment-spec events.
///
/// ```swift
/// var recipe = ExportRecipe(.amplitude)
/// try line.withUnsafeBufferPointer { try recipe.convert($0, into: &out, events: &events) }
/// ```
///
/// A recipe keeps scratch storage from record to record (so a conversion allocates nothing
/// once it has grown), which is why ``convert(_:into:events:)`` is `mutating`: use one recipe
/// per thread. What each vendor's fields become is in docs/recipes.md.
package struct ExportRecipe: Sendable {
    /// The vendor whose records this recipe reads.
    package let format: ExportFormat
    private var work = Workspace()

    /// messageIds derived from records converted so far (their events had no vendor id): see
    /// docs/recipes.md, "Derived messageIds".
    package var derivedMessageIds: Int { work.derivedIds }

    /// A recipe for `format`'s records.
    package init(_ format: ExportFormat) {
        self.format = format
        switch format {
        case .mixpanel, .posthog: work.nested = NestedObject(key: Array("properties".utf8))
        case .rudderstack: work.nested = NestedObject(key: Array("payload".utf8))
        default: break
        }
    }

    /// Converts one record (one line of the vendor's export; a JSON object) into zero or more
    /// Segment events, each appended to `out` as one compact JSON object (no newline), its range
    /// appended to `events`. Throws for a record that cannot be mapped; then `out` and `events`
    /// are as they were.
    package mutating func convert(_ record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let outCount = out.count
        let eventCount = events.count
        do throws(RecipeFailure) {
            try Self.convert(record, identity: nil, format, &work, &out, &events)
            work.derivedIds += work.derivedIdsInRecord
        } catch {
            out.removeSubrange(outCount...)
            events.removeSubrange(eventCount...)
            throw error
        }
    }

    /// Validates `bytes` as one JSON object and runs the format's recipe on it. `identity` is
    /// the original record's object when `bytes` is a rewritten copy of it.
    static func convert(
        _ bytes: UnsafeBufferPointer<UInt8>, identity: UnsafeBufferPointer<UInt8>?, _ format: ExportFormat,
        _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>]
    ) throws(RecipeFailure) {
        do throws(JSONError) {
            try ObjectLayout.scanDocument(bytes, reusing: &work.top, recording: &work.nested)
        } catch {
            throw error.kind == .unexpectedType ? .notAnObject(format) : .invalidJSON(format, error.description)
        }
        if identity == nil { work.startRecord() }
        let record = Record(bytes: bytes, identity: identity ?? UnsafeBufferPointer(rebasing: bytes[work.top.range]), format: format)
        switch format {
        case .amplitude: try AmplitudeRecipe.convert(record, &work, &out, &events)
        case .mixpanel: try MixpanelRecipe.convert(record, &work, &out, &events)
        case .ga4: try GA4Recipe.convert(record, &work, &out, &events)
        case .mparticle: try MParticleRecipe.convert(record, &work, &out, &events)
        case .posthog: try PostHogRecipe.convert(record, &work, &out, &events)
        case .rudderstack: try RudderStackRecipe.convert(record, &work, &out, &events)
        }
    }
}
