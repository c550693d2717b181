/// What one step did to one event.
enum StepEffect: Equatable {
    /// The event is as it was.
    case unchanged
    /// The event changed.
    case changed
    /// The step dropped the event.
    case drop
}

/// Why a step failed on one event (the transformer adds which step).
struct StepFailure: Error, Equatable {
    /// What went wrong, such as `'properties.items' is an array, not an object`.
    var message: String

    /// A failure with this message.
    init(_ message: String) { self.message = message }
}
