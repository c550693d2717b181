import Foundation
import Logging

/// What ``MetaRouterClient/run()`` does with the snapshot file the initializer read.
enum SnapshotDisposal: Sendable, Equatable {
    /// No file, or nothing to do.
    case none
    /// The events were read: remove the file (they are queued and saved again if not delivered).
    case remove
    /// The file is another version (`readable` false) or damaged: move it aside, whole.
    case setAside(readable: Bool, events: Int, version: Int?)
    /// The file could not be read at all: leave it, and never remove nor overwrite it.
    case protect
}

/// The disk-queue snapshot: read at creation, removed or set aside when the client runs,
/// written at the end of its run.
extension MetaRouterClient {
    /// Reads the snapshot and keeps its newest `cap` events. Reading changes no file: what to do
    /// with the file is returned, for ``disposeSnapshot()`` when the client runs.
    static func loadSnapshot(_ queue: DiskQueue, now: Date, cap: Int, logger: Logger)
        -> (events: [Event], stats: ClientStats, disposal: SnapshotDisposal)
    {
        var stats = ClientStats()
        let snapshot: DiskQueue.Snapshot
        do { snapshot = try queue.load(now: now) } catch {
            logger.error("cannot read the disk queue; it is left as it is", metadata: ["path": "\(queue.path)", "error": "\(error)"])
            return ([], stats, .protect)
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
            if snapshot.found {
                logger.info(
                    "disk queue loaded",
                    metadata: [
                        "events": "\(events.count)", "expired": "\(snapshot.expired)", "corrupt": "\(snapshot.corrupt)",
                    ])
            }
            return (events, stats, snapshot.found ? .remove : .none)
        }
        guard snapshot.found else { return (events, stats, .none) }
        // Not a snapshot this version reads, or a damaged one whose complete events were
        // loaded: the end of the run would overwrite it, so the file is kept aside, whole.
        return (events, stats, .setAside(readable: snapshot.readable, events: events.count, version: snapshot.version))
    }

    /// Removes the loaded snapshot or moves it aside (see ``SnapshotDisposal``), once, when the
    /// client starts running: a client that never runs leaves the file as it found it.
    func disposeSnapshot() {
        guard let queue = diskQueue else { return }
        let disposal = snapshotDisposal
        snapshotDisposal = .none
        switch disposal {
        case .none, .protect:
            return
        case .remove:
            do { try queue.remove() } catch {
                logger.error("cannot remove the disk queue", metadata: ["path": "\(queue.path)", "error": "\(error)"])
            }
        case .setAside(let readable, let events, let version):
            do {
                let aside = try queue.setAside(now: clock.wallClock)
                counters.snapshotsSetAside += 1
                let what =
                    readable
                    ? "the disk queue is damaged; its \(events) complete events are sent and the file was moved aside"
                    : "the disk queue could not be read; it was moved aside, its events are not sent"
                logger.warning(
                    "\(what)",
                    metadata: [
                        "path": "\(queue.path)", "moved_to": "\(aside)", "version": "\(version.map(String.init) ?? "none")",
                    ])
            } catch {
                logger.error(
                    "the disk queue could not be read nor moved aside; it is left as it is",
                    metadata: ["path": "\(queue.path)", "error": "\(error)"])
                protectSnapshot = true
            }
        }
    }

    /// Writes `leftovers` (in call order) to the disk queue, or removes the file when there are
    /// none; beside it when the file found at start must be kept.
    func saveSnapshot(_ leftovers: [(tag: UInt64, event: Event)]) {
        guard let diskQueue else {
            if !leftovers.isEmpty { logger.warning("\(leftovers.count) events were not delivered and no diskQueuePath is set") }
            return
        }
        if protectSnapshot {
            // The snapshot found at start could not be read nor moved aside: keep it untouched.
            guard !leftovers.isEmpty else { return }
            let path = diskQueue.besidePath("unsent", now: clock.wallClock)
            do {
                try DiskQueue(path: path, maxAge: diskQueue.maxAge, fileSystem: diskQueue.fileSystem).save(leftovers.map(\.event))
                logger.error(
                    "the disk queue file is in the way; undelivered events were saved beside it",
                    metadata: ["events": "\(leftovers.count)", "path": "\(path)"])
            } catch {
                logger.error(
                    "cannot write the undelivered events; \(leftovers.count) events are lost",
                    metadata: ["path": "\(path)", "error": "\(error)"])
            }
            return
        }
        do {
            if leftovers.isEmpty { try diskQueue.remove() } else { try diskQueue.save(leftovers.map(\.event)) }
            if !leftovers.isEmpty {
                logger.info(
                    "undelivered events saved to the disk queue",
                    metadata: ["events": "\(leftovers.count)", "path": "\(diskQueue.path)"])
            }
        } catch {
            logger.error(
                "cannot write the disk queue; \(leftovers.count) events are lost",
                metadata: ["path": "\(diskQueue.path)", "error": "\(error)"])
        }
    }
}
