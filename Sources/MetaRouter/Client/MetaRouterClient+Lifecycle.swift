import Foundation
import Logging

/// Periodic flushing, rehydration and shutdown.
extension MetaRouterClient {
    /// A task that calls `tick` every `interval` on `clock` until `tick` returns false or the task is cancelled.
    static func timer(clock: any EngineClock, every interval: Duration,
                      tick: @escaping @Sendable () async -> Bool) -> Task<Void, Never> {
        Task {
            var next = clock.now + interval
            while true {
                do { try await clock.sleep(until: next) } catch { return }
                guard await tick() else { return }
                next = max(next + interval, clock.now)
            }
        }
    }

    /// One flush-timer tick; false once the client is shutting down.
    func timerFired() async -> Bool {
        guard phase == .running else { return false }
        await flush()
        return phase == .running
    }

    /// Loads and removes the snapshot; keeps the newest `cap` events. A snapshot that cannot be
    /// read is moved aside, never deleted (``DiskQueue/setAside(now:)``).
    /// `protect` is true when a snapshot is still in place that could not be read nor moved
    /// aside: shutdown must then neither remove nor overwrite it.
    static func rehydrate(_ queue: DiskQueue, now: Date, cap: Int, logger: Logger)
        -> (events: [Event], stats: ClientStats, protect: Bool)
    {
        var stats = ClientStats()
        let snapshot: DiskQueue.Snapshot
        do { snapshot = try queue.load(now: now) } catch {
            logger.error("cannot read the disk queue; it is left as it is", metadata: ["path": "\(queue.path)", "error": "\(error)"])
            return ([], stats, true)
        }
        var events = snapshot.events
        if events.count > cap {
            stats.droppedQueueFull = events.count - cap
            events.removeFirst(events.count - cap)
        }
        stats.rehydrated = events.count
        stats.snapshotCorrupt = snapshot.corrupt
        stats.snapshotExpired = snapshot.expired
        if snapshot.readable, !snapshot.damaged {
            do { try queue.remove() } catch {
                logger.error("cannot remove the disk queue", metadata: ["path": "\(queue.path)", "error": "\(error)"])
            }
            logger.info("disk queue loaded", metadata: [
                "events": "\(events.count)", "expired": "\(snapshot.expired)", "corrupt": "\(snapshot.corrupt)"])
        } else if snapshot.found {
            // Not a snapshot this version reads, or a damaged one whose complete events were
            // loaded: shutdown would overwrite it, so the file is kept aside, whole.
            do {
                let aside = try queue.setAside(now: now)
                stats.snapshotsSetAside = 1
                let what = snapshot.readable
                    ? "the disk queue is damaged; its \(events.count) complete events are sent and the file was moved aside"
                    : "the disk queue could not be read; it was moved aside, its events are not sent"
                logger.warning("\(what)", metadata: [
                    "path": "\(queue.path)", "moved_to": "\(aside)",
                    "version": "\(snapshot.version.map(String.init) ?? "none")"])
            } catch {
                logger.error("the disk queue could not be read nor moved aside; it is left as it is",
                             metadata: ["path": "\(queue.path)", "error": "\(error)"])
                return (events, stats, true)
            }
        }
        return (events, stats, false)
    }

    /// Stops the timer, delivers what it can within `shutdownTimeout` (then cancels the engine),
    /// and writes every event that was not delivered to the disk queue. Later calls are dropped.
    /// Calling it again does nothing.
    public func shutdown() async {
        guard phase == .running else { return }
        phase = .shuttingDown
        tasks.cancelTimer()
        let engine = self.engine
        let clock = self.clock
        let deadline = clock.now + options.shutdownTimeout
        let limit = Task {
            do { try await clock.sleep(until: deadline) } catch { return }
            _ = await engine.cancel(grace: .seconds(1))
        }
        wakePump()
        await pumpIdle()
        await tasks.pumpEnded()
        _ = await engine.finish()
        limit.cancel()
        if let ownedTransport { await ownedTransport.shutdown() }

        var leftovers = ledger.takeUndelivered()
        leftovers.append(contentsOf: buffer)
        buffer.removeAll()
        leftovers.sort { $0.tag < $1.tag }
        if let diskQueue, protectSnapshot {
            // The snapshot found at start could not be read nor moved aside: keep it untouched.
            if !leftovers.isEmpty {
                let path = diskQueue.besidePath("unsent", now: clock.wallClock)
                do {
                    try DiskQueue(path: path, maxAge: diskQueue.maxAge, fileSystem: diskQueue.fileSystem).save(leftovers.map(\.event))
                    logger.error("the disk queue file is in the way; undelivered events were saved beside it",
                                 metadata: ["events": "\(leftovers.count)", "path": "\(path)"])
                } catch {
                    logger.error("cannot write the undelivered events; \(leftovers.count) events are lost",
                                 metadata: ["path": "\(path)", "error": "\(error)"])
                }
            }
        } else if let diskQueue {
            do {
                if leftovers.isEmpty { try diskQueue.remove() } else { try diskQueue.save(leftovers.map(\.event)) }
                if !leftovers.isEmpty {
                    logger.info("undelivered events saved to the disk queue",
                                metadata: ["events": "\(leftovers.count)", "path": "\(diskQueue.path)"])
                }
            } catch {
                logger.error("cannot write the disk queue; \(leftovers.count) events are lost",
                             metadata: ["path": "\(diskQueue.path)", "error": "\(error)"])
            }
        } else if !leftovers.isEmpty {
            logger.warning("\(leftovers.count) events were not delivered and no diskQueuePath is set")
        }
        phase = .shutDown
    }
}
