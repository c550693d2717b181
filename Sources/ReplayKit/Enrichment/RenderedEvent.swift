/// An enriched event on the hot path: where it sits in the ``EventBuffer``, and its lane.
package struct RenderedEvent: Equatable, Sendable {
    /// The event's bytes in the buffer it was rendered into.
    package var range: Range<Int>
    /// The FNV-1a hash of the event's anonymousId's bytes: what the engine's lanes and
    /// `--shard` hash the ordering key to.
    package var laneKey: UInt64
}
