import Dispatch
import NIOCore

/// An event loop as a task executor: the engine's lane tasks prefer it when the engine runs on
/// the transport's event loop, so a lane that is resumed (an answer arrived, a wake-up, a timer)
/// runs on that loop instead of being handed to the global pool first and back to the loop after
/// (two thread wake-ups per batch).
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A serial dispatch queue as a serial executor: the engine's executor when no event loop is
/// given and the transport has none (a custom or AsyncHTTPClient transport), with the semantics
/// of a default actor: one job at a time, on the global pool's threads.
final class SerialQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
