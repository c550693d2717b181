/// Segment's documented ingestion limits, and the raw-body cap both servers apply first.
package enum SegmentLimits {
    /// Largest request body after decompression, in bytes.
    package static let maxBodyBytes = 500_000
    /// Largest single event, in bytes.
    package static let maxEventBytes = 32 * 1024
    /// Most events in one batch.
    package static let maxBatchEvents = 2_500
    /// Raw (possibly compressed) bodies larger than this are refused without reading them all,
    /// and the connection is closed.
    package static let maxRawBodyBytes = 8 * 1024 * 1024
}
