import EventLoopExecution
import NIOCore

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
