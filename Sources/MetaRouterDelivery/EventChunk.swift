/// Many events rendered back to back into one buffer and submitted together: the bulk path of
/// ``DeliveryEngine/submit(chunk:)``, one allocation for all of them instead of one per event.
///
/// Each entry's bytes, `storage[entry.range]`, must be one valid JSON object with at least one
/// member and no `sentAt` or `writeKey` member (the engine stamps both), as for
/// ``EncodedEvent/init(uncheckedBytes:messageId:orderingKey:tag:)``, spanning exactly from its
/// `{` to its `}` (no whitespace around): the engine then never reads an event's bytes before
/// encoding its batch. Bytes of the storage that no entry names are ignored.
@_spi(PerLine) public struct EventChunk: Sendable {
    /// One event of a chunk.
    public struct Entry: Sendable, Equatable {
        /// Where the event's bytes are in ``EventChunk/storage``.
        public var range: Range<Int>
        /// The FNV-1a hash of the event's ordering key's UTF-8 bytes (`FNV1a.hash(key.utf8)`),
        /// which picks its lane as the key itself would. Events with equal lane keys keep their
        /// order. (An event submitted without an ordering key goes round-robin; a chunk's events
        /// always have a key.)
        public var laneKey: UInt64
        /// An opaque caller value echoed in this event's outcome.
        public var tag: UInt64

        /// Creates an entry.
        public init(range: Range<Int>, laneKey: UInt64, tag: UInt64) {
            self.range = range
            self.laneKey = laneKey
            self.tag = tag
        }
    }

    /// The events' bytes.
    public var storage: [UInt8]
    /// The events, in submit order.
    public var entries: [Entry]

    /// Creates a chunk.
    public init(storage: [UInt8] = [], entries: [Entry] = []) {
        self.storage = storage
        self.entries = entries
    }
}
