/// Values the MetaRouter SDKs write in an id field when they have no id yet: such a value is
/// sent as written, but it is not an identity. It is never a key for carry-forward, never
/// taught to the identity store, and never a lane or shard key (the line is keyed as if it had
/// no anonymousId). See `docs/enrichment.md`, "Placeholder ids".
///
/// - `unknown`: the React Native SDK's anonymousId on events made before its stored identity
///   has loaded (`MetaRouterAnalyticsClient`, `anonymousId ?? "unknown"`).
enum PlaceholderIds {
    /// The placeholder values, as the UTF-8 bytes of the unescaped id.
    static let values: [[UInt8]] = [Array("unknown".utf8)]

    /// Whether `id` (an unescaped id's bytes) is a placeholder.
    @inline(__always)
    static func contains(_ id: UnsafeBufferPointer<UInt8>) -> Bool {
        for value in values where value.count == id.count {
            if value.withUnsafeBufferPointer({ $0.elementsEqual(id) }) { return true }
        }
        return false
    }
}
