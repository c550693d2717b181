/// Why the engine settled an event without delivering it. The caller dead-letters such an event;
/// the engine goes on with the others.
///
/// ``rawValue`` is the stable name written to dead-letter files, reports and counters
/// (``DeliveryStats/givenUpReasons``, ``ClientStats/givenUp``): `too_large`, `rejected_<status>`.
///
/// Answers that stop the whole engine (401, 403, 404, or a batch's retry budget used up) are not
/// give-up reasons: they are a ``StopCause``, and the events they leave are reported
/// `.notDelivered`, kept by the caller for a later run, never dead-lettered.
public enum GiveUpReason: Sendable, Hashable, CustomStringConvertible, RawRepresentable {
    /// The event is larger than `maxEventBytes` as sent, or the endpoint answered 413 for it alone.
    case tooLarge
    /// The endpoint rejected the event alone with this 4xx status (400, 422, 409, ...).
    case rejected(status: Int)

    /// The stable name: `too_large` or `rejected_<status>`.
    public var rawValue: String {
        switch self {
        case .tooLarge: return "too_large"
        case .rejected(let status): return "rejected_\(status)"
        }
    }

    /// Parses a stable name (`too_large`, `rejected_<status>`); nil for any other string.
    public init?(rawValue: String) {
        if rawValue == "too_large" {
            self = .tooLarge
        } else if rawValue.hasPrefix("rejected_"), let status = Int(rawValue.dropFirst("rejected_".count)),
            String(status) == rawValue.dropFirst("rejected_".count)
        {
            self = .rejected(status: status)
        } else {
            return nil
        }
    }

    /// The stable name, as ``rawValue``.
    public var description: String { rawValue }
}
