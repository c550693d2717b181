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

/// A default actor without state whose executor an engine shares when it runs on no event loop
/// (a custom or AsyncHTTPClient transport): the engine is then scheduled exactly as a default
/// actor is (an idle actor is entered on the caller's thread, without a hop).
actor EngineIsolation {}

/// What a ``DeliveryEngine``'s isolation runs on.
enum EngineExecutor: Sendable {
    /// An event loop: the transport's, or one given to the engine.
    case eventLoop(any EventLoop)
    /// The executor of a default actor of the engine's own.
    case defaultActor(EngineIsolation)

    var unownedExecutor: UnownedSerialExecutor {
        switch self {
        case .eventLoop(let loop): loop.executor.asUnownedSerialExecutor()
        case .defaultActor(let isolation): isolation.unownedExecutor
        }
    }
}
