import EventLoopExecution
import Foundation
import Logging
import NIOConcurrencyHelpers

/// A sequential source of bytes that blocks its thread: the shape of ReplayKit's `ByteStream`,
/// so an object can stand where a file descriptor does.
package protocol ObjectByteStream: AnyObject {
    /// Reads up to `count` bytes into `into`; 0 means the end.
    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int
    /// Bytes handed on since the stream was opened.
    var fileBytesRead: UInt64 { get }
}

/// Reads one S3 object from a byte offset to its end, for a dedicated (blocking) reader thread.
///
/// - Every request carries `If-Match` with the object's ETag (given, or pinned from the first
///   answer), so a reopen can never read another version: a changed object is
///   ``S3Error/Kind/objectChanged``.
/// - The body streams through a bounded buffer (``S3Settings/readBufferBytes``) with backpressure,
///   so memory stays flat whatever the object's size.
/// - A reset, an early end or a stall (no bytes for ``S3Settings/idleTimeout``) reopens the object
///   with `Range: bytes=N-` at the last byte handed on, after the retry policy's back-off; what a
///   retry cannot fix, or retries that run out, throw ``S3Error``.
///
/// Use it from one thread at a time. ``close()`` (or deinit) stops the transfer in flight.
package final class S3ObjectReader: ObjectByteStream {
    /// The bucket.
    package let bucket: String
    /// The key.
    package let key: String
    /// The ETag every request must match: given, or pinned from the first answer.
    package private(set) var etag: String?
    /// The object's size, given or learnt from the first answer.
    package private(set) var size: UInt64?
    /// The offset reading started at.
    package let startOffset: UInt64
    /// The offset of the next byte to hand on.
    package private(set) var position: UInt64
    /// The offsets the object was reopened at after failures, in order.
    package private(set) var reopenOffsets: [UInt64] = []
    /// The most bytes held between the network and the reader at once.
    package private(set) var peakBufferedBytes = 0

    /// Cancels this reader from any thread (a stop request): a blocked ``read(into:count:)``
    /// wakes and throws `CancellationError`.
    package let cancellation: ReadCancellation

    /// Blocks until the body being read filled the buffer (its producer waits for room) or
    /// ended; returns at once when no body is open. For tests of backpressure.
    package func waitUntilTheBufferIsFull() { current?.handoff.waitForAWaitingProducer() }

    private let client: S3Client
    private var retry: RetryState
    private var current: (handoff: BodyHandoff, task: Task<Void, Never>)?
    private var done = false

    /// A reader of `bucket`/`key` from `offset`. Pass the listing's `etag` and `size` when known:
    /// the ETag is then pinned from the first request, and a reader at the end makes no request.
    /// `cancellation` may be shared by the readers of one run, so one stop request ends them all.
    package init(
        client: S3Client, bucket: String, key: String, etag: String?, offset: UInt64 = 0, size: UInt64? = nil,
        cancellation: ReadCancellation = ReadCancellation()
    ) {
        self.cancellation = cancellation
        self.client = client
        self.bucket = bucket
        self.key = key
        self.etag = etag
        self.size = size
        self.startOffset = offset
        self.position = offset
        self.retry = RetryState(policy: client.settings.retry)
    }

    deinit { current.map { Self.stop($0) } }

    /// Bytes handed on since the reader was opened.
    package var fileBytesRead: UInt64 { position - startOffset }

    /// Requests made after the first, to resume after a failure.
    package var reopenCount: Int { reopenOffsets.count }

    /// Reads up to `count` bytes; 0 at the end of the object. Blocks while bytes are on their way.
    package func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard count > 0 else { return 0 }
        while !done {
            if cancellation.isCancelled {
                close()
                throw CancellationError()
            }
            if let size, position >= size {
                try finish(at: size)
                return 0
            }
            let handoff = current?.handoff ?? open()
            let outcome = handoff.read(into: into, count: count, idleTimeout: client.settings.idleTimeout)
            peakBufferedBytes = max(peakBufferedBytes, handoff.peakBufferedBytes)
            switch outcome {
            case .bytes(let n):
                try checkHead(of: handoff)
                position += UInt64(n)
                retry.recordProgress()
                return n
            case .end:
                try checkHead(of: handoff)
                if let size, position < size {
                    try recover(from: AttemptFailure(.connectionReset, detail: "the body ended at byte \(position) of \(size)"))
                    continue
                }
                close()
                return 0
            case .failed(let failure):
                try recover(from: failure)
            case .fatal(let error):
                close()
                throw error
            case .stalled:
                try recover(from: AttemptFailure(.idleTimeout, detail: "no bytes for \(client.settings.idleTimeout)"))
            case .abandoned:
                close()
                throw CancellationError()
            }
        }
        return 0
    }

    /// Stops the transfer in flight; later reads return 0.
    package func close() {
        done = true
        if let current { Self.stop(current) }
        current = nil
    }

    /// Starts a GET at ``position`` whose body a task streams into a new handoff.
    private func open() -> BodyHandoff {
        let handoff = BodyHandoff(capacity: client.settings.readBufferBytes)
        let (client, bucket, key, offset, etag) = (client, bucket, key, position, etag)
        // On one of the HTTP client's event loops (``EventLoopTaskExecutor``), never the global pool.
        let task = Task(executorPreference: EventLoopTaskExecutor(client.httpClient.eventLoopGroup.any())) {
            do {
                let stream = try await client.openObject(bucket: bucket, key: key, from: offset, ifMatch: etag)
                handoff.opened(stream.head)
                for try await chunk in stream.body {
                    guard await handoff.push(chunk) else { return }
                }
                handoff.finish(nil)
            } catch let failure as AttemptFailure {
                handoff.finish(failure)
            } catch let error as S3Error {
                handoff.finish(fatal: error)
            } catch {
                handoff.finish(AttemptFailure.transport(error) ?? AttemptFailure(.connectionReset, detail: "cancelled"))
            }
        }
        current = (handoff, task)
        cancellation.watch(handoff)
        return handoff
    }

    /// Pins the ETag and learns the size from the first answer; an answer for another version
    /// (a store that ignored `If-Match`) is a changed object.
    private func checkHead(of handoff: BodyHandoff) throws {
        guard let head = handoff.openedHead else { return }
        if let pinned = etag, let seen = head.etag, pinned != seen {
            close()
            throw report.error(
                .objectChanged, last: AttemptFailure(.preconditionFailed, detail: "the store answered with ETag \(seen)"),
                attempts: 1)
        }
        if etag == nil { etag = head.etag }
        if size == nil { size = head.size }
    }

    /// The end of the object at `size`: fine when exactly there, a doubt about the offset otherwise.
    private func finish(at size: UInt64) throws {
        close()
        guard position == size else {
            throw S3Error(
                .rejected, "reading s3://\(bucket)/\(key): offset \(position) is past the object's end (\(size) bytes)",
                bucket: bucket, key: key)
        }
    }

    /// Abandons the failed transfer and either waits out the back-off (the next read reopens at
    /// ``position``) or throws the final error.
    private func recover(from failure: AttemptFailure) throws {
        if let current { Self.stop(current) }
        current = nil
        switch retry.next(after: failure.failure, random: client.timing.random()) {
        case .retry(let delay):
            client.logger.warning(
                "\(report.action): \(failure.summary) at byte \(position); reopening in \(delay) (failure \(retry.failures) of at most \(retry.policy.maxAttempts - 1))"
            )
            client.timing.blockingSleep(delay)
            reopenOffsets.append(position)
        case .fail(let kind):
            close()
            throw report.error(kind, last: failure, attempts: max(retry.failures, 1))
        }
    }

    private var report: FailureReport {
        var report = client.report("reading s3://\(bucket)/\(key)", bucket: bucket, key: key)
        report.etag = etag
        return report
    }

    private static func stop(_ transfer: (handoff: BodyHandoff, task: Task<Void, Never>)) {
        transfer.handoff.abandon()
        transfer.task.cancel()
    }
}

/// Cancels ``S3ObjectReader``s from another thread: a reader's own methods belong to its thread,
/// this handle to anyone. Once cancelled it stays cancelled.
package final class ReadCancellation: Sendable {
    /// A handle, not cancelled.
    package init() {}

    private let state = NIOLockedValueBox<(cancelled: Bool, handoff: BodyHandoff?)>((false, nil))

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

    /// Stops the reader: the transfer in flight is abandoned and a blocked read returns at once,
    /// throwing `CancellationError`; so does every later read.
    package func cancel() {
        let handoff = state.withLockedValue { state in
            state.cancelled = true
            return state.handoff
        }
        handoff?.abandon()
    }

    /// The body the reader now waits on (abandoned at once when already cancelled).
    func watch(_ handoff: BodyHandoff) {
        let cancelled = state.withLockedValue { state in
            state.handoff = handoff
            return state.cancelled
        }
        if cancelled { handoff.abandon() }
    }
}
