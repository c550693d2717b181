/// Segment's documented ingestion limits, declared once for the whole package: the delivery
/// engine's defaults keep batches inside them, and both of the package's servers enforce them.
package enum SegmentLimits {
    /// Largest request body after decompression, in bytes.
    package static let maxBodyBytes = 500_000
    /// Largest single event, in bytes.
    package static let maxEventBytes = 32 * 1024
    /// Most events in one batch.
    package static let maxBatchEvents = 2_500
    /// Raw (possibly compressed) bodies larger than this are refused by the package's servers
    /// without reading them all, and the connection is closed. Not Segment's: the servers' own.
    package static let maxRawBodyBytes = 8 * 1024 * 1024
}
