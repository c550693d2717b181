import Foundation
import Synchronization
import SystemIO
import Testing

/// `CPUUsage`: a thread's CPU is its own, and the process's holds every thread's.
@Suite struct CPUUsageTests {
    /// Keeps the CPU busy for about `seconds` of this thread's own time.
    private nonisolated func spin(_ seconds: Double) -> UInt64 {
        let start = CPUUsage.currentThread().totalSeconds
        var x: UInt64 = 1
        while CPUUsage.currentThread().totalSeconds - start < seconds {
            for i in 0..<100_000 { x = x &* 6_364_136_223_846_793_005 &+ UInt64(i) }
        }
        return x
    }

    /// Runs `body` on a thread of its own and returns what it returned.
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            Thread { done.resume(returning: body()) }.start()
        }
    }

    @Test func aThreadCountsItsOwnCPUAndTheProcessEveryThreads() async {
        let before = CPUUsage.process()
        // Two threads of their own (the test's own runs on a shared pool, whose threads run
        // other tests too): one busy, one blocked until the busy one is done.
        let busyDone = DispatchSemaphore(value: 0)
        async let busy = onThread {
            let sink = spin(0.15)
            busyDone.signal()
            return (CPUUsage.currentThread(), sink)
        }
        async let idle = onThread {
            busyDone.wait()
            return CPUUsage.currentThread()
        }
        let (busyThread, _) = await busy
        let idleThread = await idle
        let after = CPUUsage.process()
        #expect(busyThread.totalSeconds >= 0.15)
        #expect(idleThread.totalSeconds < 0.05, "a blocked thread used next to nothing")
        #expect(after.totalSeconds - before.totalSeconds >= 0.14, "the process counts the thread's time")
        #expect(busyThread.peakResidentBytes == 0, "no peak per thread")
        #expect(after.peakResidentBytes > 1_000_000)
    }
}
