import Foundation
@_spi(PerLine) import MetaRouter
import Synchronization

/// Hands chunks of events (one per engine lane, sent together) from the reader thread to the delivery task, with backpressure:
/// at most `capacity` chunks wait at a time, and the reader blocks (with a timeout, so it can
/// keep writing checkpoints) until the delivery side takes one.
final class ChunkPipe: Sendable {
    let stream: AsyncStream<[EventChunk]>
    private let continuation: AsyncStream<[EventChunk]>.Continuation
    private let slots: DispatchSemaphore
    private let closed = Atomic<Bool>(false)

    init(capacity: Int = 2) {
        (stream, continuation) = AsyncStream<[EventChunk]>.makeStream()
        slots = DispatchSemaphore(value: capacity)
    }

    /// Sends a chunk, waiting up to `timeout` for room. Returns false when it timed out (call
    /// again) or the pipe is closed.
    func send(_ chunk: [EventChunk], waitingUpTo timeout: Duration) -> Bool {
        guard !isClosed else { return false }
        let nanos = Int(timeout.components.seconds) * 1_000_000_000 + Int(timeout.components.attoseconds / 1_000_000_000)
        guard slots.wait(timeout: .now() + .nanoseconds(nanos)) == .success else { return false }
        continuation.yield(chunk)
        return true
    }

    /// The delivery side took a chunk: make room for the next.
    func taken() { slots.signal() }

    /// No more chunks will be sent.
    func finish() { continuation.finish() }

    /// The delivery side stopped taking chunks (the engine stopped): the reader should stop.
    func close() {
        closed.store(true, ordering: .relaxed)
        slots.signal()
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { closed.load(ordering: .relaxed) }
}
