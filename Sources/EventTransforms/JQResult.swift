/// What a jq step made of one event.
enum JQResult: Equatable {
    /// The expression produced no output: the event is dropped.
    case dropped
    /// The expression produced the event it was given (as jq compares values).
    case unchanged
    /// The expression produced a different object: its compact JSON.
    case replaced([UInt8])
}
