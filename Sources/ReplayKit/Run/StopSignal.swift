import Foundation
import Synchronization

/// A request to stop a run early, from a signal handler or a caller.
public final class StopSignal: Sendable {
    private let requests = Atomic<Int>(0)

    /// Creates a signal that has not been raised.
    public init() {}

    /// Asks the run to stop reading and settle what it can. Returns how many stop requests there
    /// have been, including this one.
    @discardableResult
    public func request() -> Int { requests.add(1, ordering: .relaxed).newValue }

    /// Whether a stop was requested.
    public var isRequested: Bool { requests.load(ordering: .relaxed) > 0 }
}

/// Turns SIGINT and SIGTERM into stop requests. The first signal asks the run to stop cleanly;
/// a second one exits at once with code 75 (the checkpoint on disk is always consistent,
/// because it is only ever replaced atomically).
public final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers.
    public init(stop: StopSignal, onFirst: @escaping @Sendable () -> Void = {}) {
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if stop.request() > 1 {
                    FileHandle.standardError.write(Data("mr-replay: second signal, exiting now\n".utf8))
                    _exit(75)
                }
                onFirst()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Removes the handlers.
    public func cancel() {
        for s in sources { s.cancel() }
    }
}
