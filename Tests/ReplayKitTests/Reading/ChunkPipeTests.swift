import Foundation
import MetaRouter
import ReplayKit
import Synchronization
import Testing

/// The reader's wait on the pipe is woken by what it waits for: room, a close, an interrupt,
/// or its deadline; nothing is polled.
struct ChunkPipeTests {
    /// Runs `body` on a thread of its own (as the reader runs) and returns its result.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    static let far = ContinuousClock.now + .seconds(3600)

    @Test func aFullPipeWaitsUntilAMessageIsTaken() async {
        let pipe = ChunkPipe(capacity: 1)
        #expect(pipe.send([], until: Self.far) == .sent)
        async let second = Self.onThread { pipe.send([], until: Self.far) }
        var messages = pipe.stream.makeAsyncIterator()
        _ = await messages.next()  // the first arrives; the second still waits for room
        pipe.taken()
        #expect(await second == .sent)
    }

    @Test func aCloseOrAnInterruptWakesTheWaitingReader() async {
        let pipe = ChunkPipe(capacity: 1)
        #expect(pipe.send([], until: Self.far) == .sent)
        let interrupted = await Self.onThread { () -> ChunkPipe.SendResult in
            Thread { pipe.interrupt() }.start()  // before or during the wait: it is seen once
            return pipe.send([], until: Self.far)
        }
        #expect(interrupted == .woken)
        let interruptedAgain = await Self.onThread { () -> ChunkPipe.SendResult in
            Thread { pipe.close() }.start()
            return pipe.send([], until: Self.far)
        }
        #expect(interruptedAgain == .closed)
        #expect(pipe.isClosed)
    }

    @Test func theDeadlineEndsTheWaitForTheNextCheckpoint() async {
        let pipe = ChunkPipe(capacity: 1)
        #expect(pipe.send([], until: Self.far) == .sent)
        let start = ContinuousClock.now
        let result = await Self.onThread { pipe.send([], until: ContinuousClock.now + .milliseconds(50)) }
        #expect(result == .woken)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test func aStopRequestInterruptsThroughItsHandler() async {
        let stop = StopSignal()
        let pipe = ChunkPipe(capacity: 1)
        #expect(pipe.send([], until: Self.far) == .sent)
        stop.whenRequested { pipe.interrupt() }
        let result = await Self.onThread { () -> ChunkPipe.SendResult in
            Thread { stop.request() }.start()
            return pipe.send([], until: Self.far)
        }
        #expect(result == .woken)
        let late = Atomic(false)
        stop.whenRequested { late.store(true, ordering: .relaxed) }  // added after the request: runs at once
        let ran = late.load(ordering: .relaxed)
        #expect(ran)
    }
}
