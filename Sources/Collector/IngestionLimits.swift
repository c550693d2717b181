import IngestionChecks

/// Segment's documented ingestion limits, as both of the package's servers apply them.
public enum IngestionLimits {
    /// Largest request body after decompression, in bytes.
    public static let maxBodyBytes = SegmentLimits.maxBodyBytes
    /// Largest single event, in bytes.
    public static let maxEventBytes = SegmentLimits.maxEventBytes
    /// Most events in one batch.
    public static let maxBatchEvents = SegmentLimits.maxBatchEvents
}
