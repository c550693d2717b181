import EventTransforms
import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import Timestamps

/// What a backfill would send, counted while `validate` or `run --dry-run --summary` walks the
/// inputs: the events by type and by name, the time they span, where their ids came from, and
/// what would not be sent and why. Read before a billion events go.
public struct TrialSummary: Sendable, Equatable {
    /// Input records read: lines, CSV rows, JSON array elements (a vendor's record of several
    /// events counts once).
    public var records = 0
    /// Events that would be sent.
    public var events = 0
    /// Events by type (`track`, `identify`, ...).
    public var types: [String: Int] = [:]
    /// Events by type and name (`track Order Completed`, `page Home`); types without a name
    /// (identify, group, alias) are not listed. At most ``maxNames`` names are kept.
    public var names: [String: Int] = [:]
    /// Events whose name came after ``maxNames`` others.
    public var otherNames = 0
    /// The earliest and latest event timestamps, in milliseconds since 1970.
    public var earliestMillis: Int64?
    public var latestMillis: Int64?
    /// Events with a userId of their own.
    public var userIdsGiven = 0
    /// Events with an anonymousId of their own (neither derived from the userId nor the device's).
    public var anonymousIdsGiven: Int { events - enrichment.anonymousIdsDerived - enrichment.anonymousIdsFilled }
    /// messageIds a recipe derived from the record (the vendor has no event id).
    public var messageIdsDerivedByRecipe = 0
    /// The recipe the inputs were read with (`inputs.from`), if any.
    public var recipe: String?
    /// Enrichment counters: ids derived, carried and filled; privacy actions.
    public var enrichment = EnrichStats()
    /// What each transform step did, in order (empty without transforms).
    public var transformSteps: [TransformStepCount] = []

    /// The most distinct names kept (a backfill's names are a handful to thousands; a name per
    /// event would be a bug in the export, and is not worth the memory).
    public static let maxNames = 10_000

    /// What one transform step did.
    public struct TransformStepCount: Sendable, Equatable {
        /// The step's key as written (`rename`, `drop`, `jq`, ...).
        public var kind: String
        public var changed = 0
        public var dropped = 0
        public var failed = 0
    }

    /// Creates an empty summary.
    public init() {}

    /// Counts one item of a walk: a record when it ends one, and the event it became, as
    /// `enricher` prepared it and rendered it into `output`.
    mutating func count(_ item: LineWalker.Item, enricher: Enricher, output: EventBuffer) {
        if item.line.endsLine { records += 1 }
        guard case .event(let rendered) = item.result else { return }
        output.bytes.withUnsafeBufferPointer { countEvent(enricher.preparer.event, rendered: UnsafeBufferPointer(rebasing: $0[rendered.range])) }
    }

    /// Takes what a finished walk counted besides the items: the enricher's counters, and the
    /// converter's (recipe, derived ids, transform steps).
    mutating func finish(_ enricher: Enricher, config: ReplayConfig) {
        enrichment = enricher.stats
        take(enricher.converter, recipe: config.inputs.shaping.from?.rawValue)
    }

    /// Counts an event about to be sent: `event` as prepared, `rendered` its bytes.
    mutating func countEvent(_ event: PreparedEvent, rendered: UnsafeBufferPointer<UInt8>) {
        events += 1
        let type = event.type.rawValue
        types[type, default: 0] += 1
        if event.millis != 0 {
            earliestMillis = min(earliestMillis ?? .max, event.millis)
            latestMillis = max(latestMillis ?? .min, event.millis)
        }
        if event.ownUserId != nil { userIdsGiven += 1 }
        guard let key = Self.nameKey(event.type) else { return }
        var layout = ObjectLayout()
        guard ObjectLayout.skimDocument(rendered, reusing: &layout),
            let member = layout.members.last(where: { rendered[$0.key].elementsEqual(key.utf8) }), member.kind == JSONKind.string
        else { return }
        let inner = (member.value.lowerBound + 1)..<(member.value.upperBound - 1)
        let name = type + " " + JSONStrings.decode(rendered, inner, hasEscapes: rendered[inner].contains(UInt8(ascii: "\\")))
        if names[name] != nil || names.count < Self.maxNames {
            names[name, default: 0] += 1
        } else {
            otherNames += 1
        }
    }

    /// The member that names an event of `type`, if it has one.
    private static func nameKey(_ type: EventType) -> String? {
        switch type {
        case .track: "event"
        case .page, .screen: "name"
        case .identify, .group, .alias: nil
        }
    }

    /// Takes what the walk's converter counted (recipe, derived ids, transform steps).
    private mutating func take(_ converter: RecordConverter?, recipe: String?) {
        self.recipe = recipe
        messageIdsDerivedByRecipe = converter?.derivedMessageIds ?? 0
        guard let converter, let counters = converter.transformCounters else { return }
        transformSteps = zip(converter.stepKinds, counters.steps).map {
            TransformStepCount(kind: $0.rawValue, changed: $1.changed, dropped: $1.dropped, failed: $1.failed)
        }
    }
}
