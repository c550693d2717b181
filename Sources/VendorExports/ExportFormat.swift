/// The analytics vendors whose raw exports a ``ExportRecipe`` converts into Segment events.
///
/// The raw value is the name used in configuration and in every ``RecipeFailure/detail``.
package enum ExportFormat: String, CaseIterable, Sendable {
    /// Amplitude's Export API: hourly files of NDJSON events, every field present, `null` when unset.
    case amplitude
    /// Mixpanel's raw event export: `{"event": ..., "properties": {...}}` per line.
    case mixpanel
    /// Google Analytics 4 BigQuery export rows, as newline-delimited JSON.
    case ga4
    /// mParticle event batches, one per line (its S3 output, outbound or raw-feed form).
    case mparticle
    /// PostHog's S3 batch export of the events model, JSON Lines.
    case posthog
    /// RudderStack's archived gateway jobs, one per line, each holding a batch of events.
    case rudderstack
}
