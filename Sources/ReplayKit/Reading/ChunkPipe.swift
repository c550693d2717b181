import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// Hands chunks of events (one per engine lane, sent together) from the reader thread to the
/// delivery task, with backpressure: at most `capacity` messages wait at a time, and the reader
/// blocks until the delivery side takes one.
///
/// The reader's wait is woken by what it waits for, never by polling: a message taken, the pipe
/// closed (the engine stopped), an ``interrupt()`` (a stop request), or the deadline it gives,
/// which is when its next checkpoint is due (the reader keeps writing checkpoints while the
/// engine drains what it sent).
package final class ChunkPipe: Sendable {
    /// Why ``send(_:until:)`` returned.
    package enum SendResult: Equatable {
        /// The message is on its way.
        case sent
        /// The pipe is closed: the reader stops.
        case closed
        /// Interrupted, or the deadline came, before there was room: call again.
        case woken
    }

    package let stream: AsyncStream<[EventChunk]>
    private let continuation: AsyncStream<[EventChunk]>.Continuation
    /// The room left, whether the pipe is closed, and whether an interrupt waits to be seen.
    private struct State {
        var free: Int
        var closed = false
        var interrupted = false
    }

    /// Safe to share: `state` is only read or written while `condition`'s lock is held.
    nonisolated(unsafe) private var state: State
    /// Guards `state`; the reader waits on it.
    private let condition = NSCondition()

    package init(capacity: Int = 2) {
        (stream, continuation) = AsyncStream<[EventChunk]>.makeStream()
        state = State(free: capacity)
    }

    /// Sends a message, waiting until there is room, the pipe closes, an ``interrupt()`` comes
    /// (one made before the call counts too: it is seen once), or `deadline` passes.
    package func send(_ chunk: [EventChunk], until deadline: ContinuousClock.Instant) -> SendResult {
        condition.lock()
        while !state.closed, state.free == 0, !state.interrupted {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        let result: SendResult
        if state.closed {
            result = .closed
        } else if state.free > 0 {
            state.free -= 1
            result = .sent
        } else {
            result = .woken
        }
        state.interrupted = false
        condition.unlock()
        if result == .sent { continuation.yield(chunk) }
        return result
    }

    /// The delivery side took a message: make room for the next.
    package func taken() { update { $0.free += 1 } }

    /// No more chunks will be sent.
    func finish() { continuation.finish() }

    /// The delivery side stopped taking chunks (the engine stopped): the reader should stop.
    package func close() { update { $0.closed = true } }

    /// Wakes the waiting reader, or the next one to wait, without making room (a stop request:
    /// it looks, and stops).
    package func interrupt() { update { $0.interrupted = true } }

    /// Whether ``close()`` was called.
    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.closed
    }

    private func update(_ change: (inout State) -> Void) {
        condition.lock()
        change(&state)
        condition.broadcast()
        condition.unlock()
    }
}
