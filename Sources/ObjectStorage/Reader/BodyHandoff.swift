import Foundation
import NIOCore

/// The bounded buffer between one GET's body and the blocking reader.
///
/// A task fills it as the network delivers (``push(_:)``); the reader thread drains it
/// (``read(into:count:idleTimeout:)``). Once `capacity` bytes wait, the task suspends (holding no
/// thread) until the reader has taken half of them, so the HTTP client stops reading the socket:
/// backpressure all the way to the store, and memory bounded by `capacity` plus one chunk. The
/// reader blocks on a condition variable while the buffer is empty, up to the idle timeout.
package final class BodyHandoff: @unchecked Sendable {
    // @unchecked Sendable is safe: every `var` below is read and written only while `condition` is
    // locked, and `capacity` is immutable.

    /// What the reader got.
    package enum Outcome {
        /// This many bytes were copied.
        case bytes(Int)
        /// The body ended after everything buffered was read.
        case end
        /// The attempt failed after everything buffered was read.
        case failed(AttemptFailure)
        /// A failure no retry can fix (credentials).
        case fatal(S3Error)
        /// Nothing arrived for the idle timeout.
        case stalled
        /// The body was abandoned (the read was cancelled) while the reader waited.
        case abandoned
    }

    private enum End {
        case finished
        case failed(AttemptFailure)
        case fatal(S3Error)
    }

    private let condition = NSCondition()
    private let capacity: Int
    private var chunks = CircularBuffer<ByteBuffer>()
    private var buffered = 0
    private var peak = 0
    private var head: ObjectHead?
    private var end: End?
    private var spaceWaiter: CheckedContinuation<Void, Never>?
    private var abandoned = false
    /// Readers blocked in ``read(into:count:idleTimeout:)`` right now.
    private var readersWaiting = 0

    /// A handoff holding at most about `capacity` bytes.
    package init(capacity: Int) { self.capacity = capacity }

    // MARK: The body's side (a task)

    /// The answer's head arrived.
    func opened(_ head: ObjectHead) { withLock { self.head = head } }

    /// Adds a chunk; suspends while the buffer is full. Returns false once the reader abandoned
    /// this body (stop streaming it).
    package func push(_ chunk: ByteBuffer) async -> Bool {
        let mustWait: Bool? = withLock {
            guard !abandoned else { return nil }
            guard chunk.readableBytes > 0 else { return false }
            chunks.append(chunk)
            buffered += chunk.readableBytes
            peak = max(peak, buffered)
            condition.broadcast()
            return buffered >= capacity
        }
        guard let mustWait else { return false }
        if mustWait {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = withLock {
                        if abandoned || buffered < capacity { return true }
                        spaceWaiter = continuation
                        condition.broadcast()  // for ``waitForAWaitingProducer()``
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                self.abandon()
            }
        }
        return withLock { !abandoned }
    }

    /// The body ended: normally (`nil`), or with a failure.
    package func finish(_ failure: AttemptFailure?) {
        withLock {
            if end == nil { end = failure.map(End.failed) ?? .finished }
            condition.broadcast()
        }
    }

    /// The attempt failed in a way no retry can fix.
    func finish(fatal error: S3Error) {
        withLock {
            if end == nil { end = .fatal(error) }
            condition.broadcast()
        }
    }

    // MARK: The reader's side (a blocking thread)

    /// The answer's head, once it arrived.
    var openedHead: ObjectHead? { withLock { head } }

    /// The most bytes buffered at once.
    package var peakBufferedBytes: Int { withLock { peak } }

    /// Copies up to `count` bytes into `into`, waiting while the buffer is empty, but no longer
    /// than `idleTimeout` without any byte arriving.
    package func read(into: UnsafeMutablePointer<UInt8>, count: Int, idleTimeout: Duration) -> Outcome {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: idleTimeout.seconds)
        while chunks.isEmpty && end == nil && !abandoned {
            readersWaiting += 1
            condition.broadcast()  // for ``waitForAWaitingReader()``
            let signalled = condition.wait(until: deadline)
            readersWaiting -= 1
            if !signalled && chunks.isEmpty && end == nil && !abandoned {
                condition.unlock()
                return .stalled
            }
        }
        if abandoned {
            condition.unlock()
            return .abandoned
        }
        guard !chunks.isEmpty else {
            let outcome: Outcome
            switch end {
            case .failed(let failure): outcome = .failed(failure)
            case .fatal(let error): outcome = .fatal(error)
            case .finished, nil: outcome = .end
            }
            condition.unlock()
            return outcome
        }
        let copied = copyOut(into: into, count: count)
        var waiter: CheckedContinuation<Void, Never>?
        if buffered <= capacity / 2 {
            waiter = spaceWaiter
            spaceWaiter = nil
        }
        condition.unlock()
        waiter?.resume()
        return .bytes(copied)
    }

    /// Blocks until a reader is waiting in ``read(into:count:idleTimeout:)`` for bytes: for tests
    /// that wake a blocked reader and must know it blocked first.
    package func waitForAWaitingReader() {
        condition.lock()
        while readersWaiting == 0 { condition.wait() }
        condition.unlock()
    }

    /// Blocks until the producer is suspended in ``push(_:)`` waiting for room, or the body was
    /// abandoned or ended: for tests that must know the buffer filled (backpressure holds the rest).
    package func waitForAWaitingProducer() {
        condition.lock()
        while spaceWaiter == nil && !abandoned && end == nil { condition.wait() }
        condition.unlock()
    }

    /// The reader is done with this body (or the read was cancelled): wake the task so it stops,
    /// and a reader waiting in ``read(into:count:idleTimeout:)``.
    package func abandon() {
        let waiter: CheckedContinuation<Void, Never>? = withLock {
            abandoned = true
            chunks.removeAll()
            buffered = 0
            condition.broadcast()
            defer { spaceWaiter = nil }
            return spaceWaiter
        }
        waiter?.resume()
    }

    /// Moves up to `count` buffered bytes to `into`. Called with the lock held.
    private func copyOut(into: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        var copied = 0
        while copied < count, var chunk = chunks.first {
            let n = min(count - copied, chunk.readableBytes)
            chunk.withUnsafeReadableBytes { bytes in
                // Safe: `bytes` is the chunk's readable region, of at least `n` bytes (n ≤
                // readableBytes); the caller's buffer has room for `count` bytes and `copied + n ≤
                // count`. Both sides are plain bytes, so a raw copy needs no binding.
                UnsafeMutableRawPointer(into + copied).copyMemory(from: bytes.baseAddress!, byteCount: n)
            }
            chunk.moveReaderIndex(forwardBy: n)
            if chunk.readableBytes == 0 {
                chunks.removeFirst()
            } else {
                chunks[chunks.startIndex] = chunk
            }
            copied += n
        }
        buffered -= copied
        return copied
    }

    private func withLock<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}

extension Duration {
    /// In seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
