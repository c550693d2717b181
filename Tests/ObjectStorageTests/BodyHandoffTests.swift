import Foundation
import NIOCore
import ObjectStorage
import Testing

/// The bounded buffer between a body and the blocking reader, without a network.
struct BodyHandoffTests {
    /// Reads everything on a thread of its own, as mr-replay's reader does. A reader that stops
    /// before the end abandons the body, as `S3ObjectReader` does, so a producer waiting for room
    /// is woken. The idle limit (30 s) only keeps a broken handoff from hanging the test: under
    /// the whole suite on 2 cores, 5 s passed between two pushes of the producer task.
    static func drain(_ handoff: BodyHandoff, chunk: Int = 10_000) async -> (bytes: [UInt8], outcome: String) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: chunk)
                while true {
                    // `buffer` has `chunk` elements, so its base address is valid for `chunk` bytes.
                    let outcome = buffer.withUnsafeMutableBufferPointer {
                        handoff.read(into: $0.baseAddress!, count: chunk, idleTimeout: .seconds(30))
                    }
                    let stop: String
                    switch outcome {
                    case .bytes(let n):
                        bytes += buffer[..<n]
                        continue
                    case .end: return continuation.resume(returning: (bytes, "end"))
                    case .failed(let failure): stop = "failed \(failure.failure)"
                    case .fatal: stop = "fatal"
                    case .stalled: stop = "stalled"
                    case .abandoned: stop = "abandoned"
                    }
                    handoff.abandon()
                    return continuation.resume(returning: (bytes, stop))
                }
            }
        }
    }

    @Test func deliversEverythingInOrderWithinTheBound() async {
        let handoff = BodyHandoff(capacity: 64 << 10)
        let chunks = (0..<200).map { i in ByteBuffer(bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &+ i) }) }
        async let drained = Self.drain(handoff)
        for chunk in chunks { _ = await handoff.push(chunk) }
        handoff.finish(nil)
        let (bytes, outcome) = await drained
        #expect(outcome == "end")
        // Compared as a Bool: on 800 KB, a failing `==` would have the testing library diff the
        // two arrays, which takes minutes.
        let expected = chunks.flatMap { Array($0.readableBytesView) }
        let firstDifference = zip(bytes, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(
            bytes.count == expected.count && firstDifference == nil,
            "\(bytes.count) of \(expected.count) bytes, first difference at \(firstDifference.map(String.init) ?? "none")")
        #expect(handoff.peakBufferedBytes <= (64 << 10) + 4096)
    }

    @Test func aFailureComesAfterTheBytesBeforeIt() async {
        let handoff = BodyHandoff(capacity: 1 << 20)
        _ = await handoff.push(ByteBuffer(string: "abc"))
        handoff.finish(AttemptFailure(.connectionReset, detail: "cut"))
        let (bytes, outcome) = await Self.drain(handoff)
        #expect(bytes == Array("abc".utf8))
        #expect(outcome == "failed connectionReset")
    }

    @Test func aQuietBodyStalls() {
        let handoff = BodyHandoff(capacity: 1 << 20)
        var byte: UInt8 = 0
        let started = ContinuousClock.now
        // `&byte` is a pointer to one byte, valid for the call, and the read asks for one byte.
        guard case .stalled = handoff.read(into: &byte, count: 1, idleTimeout: .milliseconds(200)) else {
            Issue.record("expected a stall")
            return
        }
        #expect(ContinuousClock.now - started >= .milliseconds(190))
    }

    /// Abandoning (a cancelled read) wakes a reader waiting for bytes at once, long before its
    /// idle timeout. Both sides are threads of their own and the wait is timed on the reader's,
    /// so a busy concurrency pool cannot blur it; an abandon that comes before the read starts
    /// ends it at once too.
    @Test func abandoningWakesTheReader() async {
        let handoff = BodyHandoff(capacity: 1 << 20)
        Thread.detachNewThread {
            handoff.waitForAWaitingReader()  // the reader is blocked: the abandon must wake it
            handoff.abandon()
        }
        let (abandoned, waited) = await withCheckedContinuation { (continuation: CheckedContinuation<(Bool, Duration), Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                let started = ContinuousClock.now
                // `&byte` is a pointer to one byte, valid for the call, and the read asks for one byte.
                let outcome = handoff.read(into: &byte, count: 1, idleTimeout: .seconds(60))
                let abandoned = if case .abandoned = outcome { true } else { false }
                continuation.resume(returning: (abandoned, ContinuousClock.now - started))
            }
        }
        #expect(abandoned)
        #expect(waited < .seconds(30), "woken by the abandon, not the idle timeout")
    }

    /// A producer waiting for room is released when the reader abandons the body.
    @Test func abandoningReleasesTheProducer() async {
        let handoff = BodyHandoff(capacity: 64 << 10)
        let producer = Task { () -> Int in
            var pushed = 0
            while await handoff.push(ByteBuffer(repeating: 1, count: 32 << 10)) { pushed += 1 }
            return pushed
        }
        // Waited for on a thread of its own: it blocks, and the producer needs the task pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                handoff.waitForAWaitingProducer()
                done.resume()
            }
        }
        handoff.abandon()
        let pushed = await producer.value
        #expect(pushed == 1)
    }
}
