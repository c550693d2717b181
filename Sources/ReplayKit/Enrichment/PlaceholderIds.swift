@_spi(PerLine) import MetaRouterDelivery

/// Values the MetaRouter SDKs write in an id field when they have no id yet: such a value is
/// sent as written, but it is not an identity. It is never a key for carry-forward, never
/// taught to the identity store, and never a lane or shard key (the line is keyed as if it had
/// no anonymousId). See `docs/enrichment.md`, "Placeholder ids".
///
/// - `unknown`: the React Native SDK's anonymousId on events made before its stored identity
///   has loaded (`MetaRouterAnalyticsClient`, `anonymousId ?? "unknown"`).
enum PlaceholderIds {
    /// Whether `id` (an unescaped id's bytes) is a placeholder (one of the values above).
    /// Compared with literals, not kept in a `static let` array: reading a lazily initialized
    /// global costs a `swift_once` call, on every line (0.6 % of a dry run).
    @inline(__always)
    static func contains(_ id: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteWords.equal(id, "unknown")
    }
}
