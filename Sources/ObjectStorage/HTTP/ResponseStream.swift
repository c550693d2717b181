import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One exchange's answer, between its connection's handler (on the event loop), which hands it
/// the head, the body's chunks and the end or a failure, and the tasks that await the head and
/// read the body (any thread).
///
/// The handler wakes waiting tasks (``wake()``) once it has handled everything one read brought:
/// an answer whose end came in the same read as its head or last chunk has then ended, and its
/// connection is back in the idle pool, before its consumer can move on (or drop the body).
///
/// It asks the connection for a read only when a reader waits and nothing is buffered, so at most
/// one read's worth of the body is held. An answer abandoned before its end (the body dropped, or
/// a waiting task cancelled) closes its connection: the rest of the answer would otherwise be
/// taken for the next request's.
final class ResponseStream: Sendable {
    private typealias HeadWaiter = CheckedContinuation<HTTPResponseHead, any Error>
    private typealias ChunkWaiter = CheckedContinuation<ByteBuffer?, any Error>

    /// What a reader of the body gets next.
    private enum Next {
        case chunk(ByteBuffer)
        case end
        case failed(any Error)
        case pending

        /// The result to hand the reader, or nil when it must wait.
        var result: Result<ByteBuffer?, any Error>? {
            switch self {
            case .chunk(let chunk): return .success(chunk)
            case .end: return .success(nil)
            case .failed(let error): return .failure(error)
            case .pending: return nil
            }
        }
    }

    private struct State {
        var head: HTTPResponseHead?
        /// Whether the head was handed to the consumer (``wake()``).
        var headPublished = false
        var headWaiter: HeadWaiter?
        /// Chunks that arrived before a reader asked; never non-empty while `chunkWaiter` is set.
        var chunks = CircularBuffer<ByteBuffer>()
        var chunkWaiter: ChunkWaiter?
        var ended = false
        var failure: (any Error)?
        var abandoned = false

        /// Whether the answer is over for its connection: ended, failed or abandoned.
        var isOver: Bool { ended || failure != nil || abandoned }

        /// Takes both waiters.
        mutating func takeWaiters() -> (HeadWaiter?, ChunkWaiter?) {
            defer {
                headWaiter = nil
                chunkWaiter = nil
            }
            return (headWaiter, chunkWaiter)
        }

        /// The waiters that can be woken now, with what each gets (taken out of the state).
        mutating func takeReady() -> (head: (HeadWaiter, HTTPResponseHead)?, chunk: (ChunkWaiter, ByteBuffer?)?) {
            var ready: (head: (HeadWaiter, HTTPResponseHead)?, chunk: (ChunkWaiter, ByteBuffer?)?) = (nil, nil)
            if let head, !headPublished {
                headPublished = true
                ready.head = headWaiter.map { ($0, head) }
                headWaiter = nil
            }
            if let waiter = chunkWaiter, !chunks.isEmpty || ended {
                chunkWaiter = nil
                ready.chunk = (waiter, chunks.popFirst())
            }
            return ready
        }
    }

    /// The connection the answer comes on.
    private let channel: any Channel
    private let state = NIOLockedValueBox(State())

    /// The answer to come on `channel`.
    init(channel: any Channel) { self.channel = channel }

    // MARK: The consumer's side

    /// The answer's head, once it arrives.
    /// - Throws: the failure that ended the exchange (an ``ObjectHTTPError``), or
    ///   `CancellationError` when the task is cancelled (the connection is then closed).
    func head() async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: HeadWaiter) in
                let ready: Result<HTTPResponseHead, any Error>? = state.withLockedValue { state in
                    if let head = state.head, state.headPublished { return .success(head) }
                    if state.abandoned { return .failure(CancellationError()) }
                    if let failure = state.failure { return .failure(failure) }
                    state.headWaiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            abandon()
        }
    }

    /// The body's next chunk, or nil at its end; waits (asking the connection for a read) when none
    /// has arrived. Chunks that arrived before a failure come before it.
    /// - Throws: the failure that ended the exchange, or `CancellationError` when the task is
    ///   cancelled while it waits (the connection is then closed).
    func next() async throws -> ByteBuffer? {
        if let ready = state.withLockedValue({ Self.take(&$0, waiter: nil) }).result { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: ChunkWaiter) in
                let next = state.withLockedValue { Self.take(&$0, waiter: continuation) }
                if let ready = next.result {
                    continuation.resume(with: ready)
                } else {
                    channel.read()
                }
            }
        } onCancel: {
            abandon()
        }
    }

    /// What the reader gets next; when nothing is there yet, `waiter` (if any) is kept to get it.
    private static func take(_ state: inout State, waiter: ChunkWaiter?) -> Next {
        if state.abandoned { return .failed(CancellationError()) }
        if let chunk = state.chunks.popFirst() { return .chunk(chunk) }
        if state.ended { return .end }
        if let failure = state.failure { return .failed(failure) }
        if let waiter { state.chunkWaiter = waiter }
        return .pending
    }

    /// The consumer is done before the end (it dropped the body, or its task was cancelled): the
    /// connection is closed, and a task waiting for the head or a chunk gets `CancellationError`.
    /// Nothing happens once the answer ended or failed.
    func abandon() {
        let waiters = state.withLockedValue { state -> (HeadWaiter?, ChunkWaiter?)? in
            guard !state.isOver else { return nil }
            state.abandoned = true
            state.chunks.removeAll()
            return state.takeWaiters()
        }
        guard let (headWaiter, chunkWaiter) = waiters else { return }
        channel.close(promise: nil)
        headWaiter?.resume(throwing: CancellationError())
        chunkWaiter?.resume(throwing: CancellationError())
    }

    // MARK: The connection's side (its event loop)

    /// The head arrived (a waiting task gets it at the next ``wake()``).
    func receive(head: HTTPResponseHead) {
        state.withLockedValue { state in
            if !state.isOver { state.head = head }
        }
    }

    /// A chunk of the body arrived (a waiting task gets it at the next ``wake()``).
    func receive(body chunk: ByteBuffer) {
        state.withLockedValue { state in
            if !state.isOver { state.chunks.append(chunk) }
        }
    }

    /// The body ended (a waiting task learns it at the next ``wake()``). Returns false when the
    /// answer was abandoned or failed first: its connection must not be used again.
    func receiveEnd() -> Bool {
        state.withLockedValue { state in
            guard !state.isOver else { return false }
            state.ended = true
            return true
        }
    }

    /// Hands what arrived to the tasks waiting for it: the head, a chunk, or the end.
    func wake() {
        let ready = state.withLockedValue { $0.takeReady() }
        if let (waiter, head) = ready.head { waiter.resume(returning: head) }
        if let (waiter, chunk) = ready.chunk { waiter.resume(returning: chunk) }
    }

    /// The exchange failed with `error`; the first failure counts, and none counts once the body
    /// ended or the answer was abandoned. Waiting tasks are woken at once; a chunk that arrived
    /// before the failure still comes before it.
    func fail(_ error: ObjectHTTPError) {
        let waiters = state.withLockedValue { state -> (HeadWaiter?, ChunkWaiter?, ByteBuffer?)? in
            guard !state.isOver else { return nil }
            state.failure = error
            let chunk = state.chunkWaiter == nil ? nil : state.chunks.popFirst()
            let (headWaiter, chunkWaiter) = state.takeWaiters()
            return (headWaiter, chunkWaiter, chunk)
        }
        guard let (headWaiter, chunkWaiter, chunk) = waiters else { return }
        headWaiter?.resume(throwing: error)
        if let chunk { chunkWaiter?.resume(returning: chunk) } else { chunkWaiter?.resume(throwing: error) }
    }

    /// Whether the connection should read: the head has not arrived, or a reader waits and nothing
    /// is buffered.
    var wantsRead: Bool {
        state.withLockedValue { !$0.isOver && ($0.head == nil || ($0.chunkWaiter != nil && $0.chunks.isEmpty)) }
    }

    /// Whether the head has arrived.
    var headArrived: Bool { state.withLockedValue { $0.head != nil } }
}
