/// What became of one input line.
public enum EnrichResult: Sendable, Equatable {
    /// A correct, enriched event ready to send (no trailing newline; it always has a
    /// `messageId`). `orderingKey` is the identity lane (the event's anonymousId) that must keep
    /// its order.
    case event(bytes: [UInt8], orderingKey: String?)
    /// An empty or whitespace-only line: skipped and counted.
    case blank
    /// A rejected line; `reason` is a stable code such as `invalid_json`.
    case deadLetter(reason: String, detail: String)
}

/// The stable dead-letter reason codes.
public enum DeadLetterReason {
    /// The line is not valid JSON.
    public static let invalidJSON = "invalid_json"
    /// Valid JSON but not an object.
    public static let notAnObject = "not_an_object"
    /// The line is not valid UTF-8.
    public static let invalidUTF8 = "invalid_utf8"
    /// No string `type`.
    public static let missingType = "missing_type"
    /// `type` is not track/identify/page/screen/group/alias.
    public static let unknownType = "unknown_type"
    /// A track event without `event`.
    public static let missingEventName = "missing_event_name"
    /// A group event without `groupId`.
    public static let missingGroupId = "missing_group_id"
    /// No `timestamp` (and `enrichment.default_timestamp` is not `now`).
    public static let missingTimestamp = "missing_timestamp"
    /// `timestamp` is not an ISO-8601 date-time.
    public static let invalidTimestamp = "invalid_timestamp"
    /// `context` (or `context.device`/`app`/`os`) is present but not an object.
    public static let invalidContext = "invalid_context"
    /// The line is longer than `batching.max_event_bytes`.
    public static let tooLarge = "too_large"
    /// GDPR applies and data-usage consent is not given.
    public static let consentDenied = "consent_denied"
    /// An input could not be read to its end (e.g. truncated gzip); reported once per input.
    public static let readError = "read_error"
    /// The identity database failed.
    public static let identityStoreError = "identity_store_error"
}
