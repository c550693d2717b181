/// What became of one event that did not fail.
package enum TransformOutcome: Sendable, Equatable {
    /// The event went through every step; its JSON was appended to the output. `changed`:
    /// some step changed it.
    case kept(changed: Bool)
    /// Step `step` (from 1) dropped the event; nothing was appended.
    case dropped(step: Int)
}
