/// The stable dead-letter reason codes.
package enum DeadLetterReason {
    /// The line is not valid JSON.
    package static let invalidJSON = "invalid_json"
    /// Valid JSON but not an object.
    package static let notAnObject = "not_an_object"
    /// The line is not valid UTF-8.
    package static let invalidUTF8 = "invalid_utf8"
    /// No string `type`.
    package static let missingType = "missing_type"
    /// `type` is not track/identify/page/screen/group/alias.
    package static let unknownType = "unknown_type"
    /// A track event without `event`.
    package static let missingEventName = "missing_event_name"
    /// A group event without `groupId`.
    package static let missingGroupId = "missing_group_id"
    /// No `timestamp` (and `enrichment.default_timestamp` is not `now`).
    package static let missingTimestamp = "missing_timestamp"
    /// `timestamp` is not an ISO-8601 timestamp (the forms ``Timestamp`` accepts).
    package static let invalidTimestamp = "invalid_timestamp"
    /// `context` (or `context.device`/`app`/`os`) is present but not an object.
    package static let invalidContext = "invalid_context"
    /// The line is longer than `batching.max_event_bytes`.
    package static let tooLarge = "too_large"
    /// A snapshot whose bytes from a break to the end could not be read (cut short or damaged).
    package static let damagedSnapshot = "damaged_snapshot"
    /// A snapshot of a version this mr-replay cannot read (`validate` only: `run` refuses it).
    package static let unsupportedSnapshot = "unsupported_snapshot"
    /// Neither `anonymousId` nor `userId`, and `enrichment.identity.device_lines` is `reject`.
    package static let missingIdentity = "missing_identity"
    /// An `alias` without a `previousId` or a `userId`.
    package static let invalidAlias = "invalid_alias"
    /// An input could not be read to its end (e.g. truncated gzip); reported once per input.
    package static let readError = "read_error"
    /// The identity database failed.
    package static let identityStoreError = "identity_store_error"
    /// A CSV or TSV record with more or fewer fields than the header, or a cell that does not
    /// fit its column's type (the detail names the record and the column).
    package static let invalidCSVRecord = "invalid_csv_record"
    /// A zip archive's member that cannot be read (bad CRC, damaged data, an unsupported method);
    /// the next member is read when the archive says where it starts.
    package static let damagedMember = "damaged_member"
    /// A vendor's record a recipe cannot map (`missing_field`, `invalid_field`): the recipe's
    /// reasons, whose detail names the recipe and the field.
    package static let missingField = "missing_field"
    package static let invalidField = "invalid_field"
    /// A transform step failed on the event (the detail names the step).
    package static let transformFailed = "transform_failed"
}
