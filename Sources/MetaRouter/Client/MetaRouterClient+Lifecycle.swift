import Foundation
import Logging
import ServiceLifecycle

/// Running, periodic flushing, and shutting down.
extension MetaRouterClient {
    /// Runs the client: runs its engine, hands queued events to it in order and flushes every
    /// `flushInterval`, until a graceful shutdown of its service group, the cancellation of the
    /// calling task, or ``shutdown()``. After a graceful shutdown or ``shutdown()`` it delivers
    /// what it can within `shutdownTimeout` (then the engine is cancelled with 1 s of grace);
    /// after a cancellation the engine stops at once. Then it shuts down an owned transport,
    /// writes every undelivered event to the disk queue, and returns. Later calls are dropped.
    /// Held events (`autoStart: false` before ``start()``, or waiting for ATT) are not sent:
    /// they go to the disk queue.
    ///
    /// A client runs once: a second call returns at once.
    public func run() async throws {
        guard phase == .ready else {
            logger.warning("run() called on a client that already ran; ignored")
            return
        }
        phase = .running
        stateMoved()
        startWaiters.resumeAll()
        disposeSnapshot()
        let (signal, engine) = (stopSignal, engine)
        await withTaskCancellationOrGracefulShutdownHandler {
            // The client handles the graceful shutdown: the engine ends once the queue is handed
            // over. From the stop request, the engine gets `shutdownTimeout` (then 1 s of grace).
            let limit = DeliveryEngine.StopPolicy.finishBy(deadline: { await self.beginShutdown() }, grace: .seconds(1))
            _ = await engine.run(stop: signal, onStop: limit) {
                await withDiscardingTaskGroup { timer in
                    timer.addTask { await self.runTimer() }
                    await runPump()
                    // The pump also ends when the engine stops early: calls are still taken (and
                    // queued for the snapshot) until the stop is asked for.
                    _ = await signal.requested()
                    timer.cancelAll()
                }
                return ((), .finish)
            }
        } onCancelOrGracefulShutdown: {
            signal.request()
        }
        await finishShutdown()
    }

    /// Shuts the client down: ends ``run()`` (which delivers within `shutdownTimeout` and
    /// snapshots the rest) and returns once it has. A client that never ran does the same work
    /// here. Calling it again, or after the service group stopped the client, does nothing.
    public func shutdown() async {
        switch phase {
        case .ready:
            stopSignal.request()
            try? await run()
        case .running, .shuttingDown:
            stopSignal.request()
            let done = Wakeup()
            shutdownWaiters.append(done)
            await done.wait()
        case .shutDown:
            return
        }
    }

    /// The flush timer: flushes every `flushInterval` on the clock until cancelled or shutting down.
    func runTimer() async {
        var next = clock.now + options.flushInterval
        while phase == .running {
            do { try await clock.sleep(until: next) } catch { return }
            guard phase == .running else { return }
            await flush()
            next = max(next + options.flushInterval, clock.now)
        }
    }

    /// The stop was asked for: no more calls are taken and the pump hands over what is queued.
    /// Returns when the engine's time is up (`shutdownTimeout` from the first call).
    func beginShutdown() -> Duration {
        if phase == .running {
            phase = .shuttingDown
            stateMoved()
            shutdownDeadline = clock.now + options.shutdownTimeout
            wakePump()
        }
        return shutdownDeadline ?? clock.now
    }

    /// The end of ``run()``: shuts down an owned transport and writes the undelivered events to
    /// the disk queue.
    func finishShutdown() async {
        if let ownedTransport { await ownedTransport.shutdown() }
        var leftovers = ledger.takeUndelivered()
        leftovers.append(contentsOf: takeSpilled())
        leftovers.append(contentsOf: released)
        leftovers.append(contentsOf: buffer)
        buffer.removeAll()
        released.removeAll()
        leftovers.sort { $0.tag < $1.tag }
        if !gate.collects {
            // Data usage is revoked: nothing is kept for a later run.
            counters.purgedByConsent += leftovers.count
            leftovers.removeAll()
        }
        // An overflow file that could not be read stays in place: the next client reads it.
        saveSnapshot(leftovers)
        phase = .shutDown
        stateMoved()
        startWaiters.resumeAll()
        shutdownWaiters.resumeAll()
    }
}
