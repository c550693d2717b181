/// The one formula that routes an event to a lane: the engine uses it, and so do callers that
/// group events the way the engine will (mr-replay's reader builds one chunk per lane, and splits
/// identities into shards with the same formula).
@_spi(PerLine) public enum LaneRouting {
    /// The lane key of an ordering key (usually `anonymousId ?? userId`): the FNV-1a hash of its
    /// UTF-8 bytes. Events with equal keys share a lane and keep their order.
    @inlinable
    public static func laneKey(forOrderingKey key: String) -> UInt64 {
        FNV1a.hash(key.utf8)
    }

    /// The lane, in `0..<laneCount`, of an event whose lane key is `key`. `laneCount` must be positive.
    @inlinable
    public static func lane(forKey key: UInt64, laneCount: Int) -> Int {
        precondition(laneCount > 0, "laneCount must be positive, got \(laneCount)")
        return Int(key % UInt64(laneCount))
    }
}
