/// Enriched events rendered back to back into one growing buffer, shared by the code that
/// enriches lines and the code that consumes the events (a dry run's output, a run's chunk).
/// A class so both sides can reach it while a walk is under way; used by one thread at a time.
package final class EventBuffer {
    /// The rendered events, back to back (see ``RenderedEvent/range``).
    // Unchecked: one thread at a time uses the buffer, and each line's rules write into it
    // through one `inout` access that nothing else overlaps (the line being prepared is in the
    // reader's buffer, not here).
    @exclusivity(unchecked) package var bytes: [UInt8] = []

    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }
}
