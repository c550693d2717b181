import NIOCore

/// An event loop as a task executor. The task that streams a GET's body into the reader's
/// buffer prefers the HTTP client's event loop: the body's chunks arrive on that loop, so the
/// task runs where they arrive, and it never needs a thread of the global concurrency pool. A
/// reader blocked in a pool thread (a command that reads inputs from async code) therefore
/// cannot starve the task it waits for, even on a machine whose pool has one thread.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
