import NIOCore

/// An event loop as a task executor: a task that prefers it runs its jobs on that loop.
///
/// The package's tasks whose work arrives on an event loop prefer it, so they run where their
/// work arrives instead of being handed to the global concurrency pool and back (two thread
/// wake-ups each time):
/// - the delivery engine's lane tasks, on the transport's loop, resumed by answers, wake-ups and
///   timers;
/// - the S3 reader's task that streams a GET's body into the reader's buffer, on the HTTP
///   client's loop. It never needs a pool thread, so a reader blocked in one (a command that reads
///   inputs from async code) cannot starve it, even where the pool has one thread.
package final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop the jobs run on.
    package let loop: any EventLoop

    /// An executor that runs its jobs on `loop`.
    package init(_ loop: any EventLoop) { self.loop = loop }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
