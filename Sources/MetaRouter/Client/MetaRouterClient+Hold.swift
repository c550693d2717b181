import DequeModule
import JSONCore
import Logging

/// Held events (not started, or waiting for ATT): bounded in memory, the oldest moved to the
/// hold overflow file beside the disk queue, read back when sending may resume.
extension MetaRouterClient {
    /// The number of events in a hold overflow file found at creation, if there is one.
    static func leftoverOverflowCount(_ overflow: DiskQueue, logger: Logger) -> Int? {
        do {
            let snapshot = try overflow.load()
            guard snapshot.found else { return nil }
            logger.info(
                "hold overflow file found; its events are sent first",
                metadata: ["path": "\(overflow.path)", "events": "\(snapshot.events.count)"])
            return snapshot.events.count
        } catch {
            logger.error("cannot read the hold overflow file", metadata: ["path": "\(overflow.path)", "error": "\(error)"])
            return nil
        }
    }

    /// Memory is over `maxQueueEvents` while events are held: moves the oldest to the overflow
    /// file, down to half the memory cap. Returns false when there is no overflow file or it
    /// cannot be written (the caller then drops the oldest, as without a hold).
    func spillHeld() -> Bool {
        guard let overflow, !gate.sends, !buffer.isEmpty else { return false }
        let keep = options.maxQueueEvents / 2
        let count = max(1, buffer.count - keep)
        let moving = Array(buffer.prefix(count))
        do {
            let dropped = try overflow.append(moving.map(\.event), cap: options.maxDiskEvents)
            buffer.removeFirst(count)
            spilledTags.append(contentsOf: moving.map(\.tag))
            spilledTags.removeFirst(min(dropped, spilledTags.count))
            counters.spilledToDisk += count
            counters.droppedQueueFull += dropped
            if dropped > 0 {
                logger.warning(
                    "hold overflow full: oldest events dropped",
                    metadata: ["dropped": "\(dropped)", "maxDiskEvents": "\(options.maxDiskEvents)"])
            }
            return true
        } catch {
            logger.error("cannot write the hold overflow file", metadata: ["path": "\(overflow.path)", "error": "\(error)"])
            return false
        }
    }

    /// Takes the overflow file's events back (oldest first, with their tags) and removes the
    /// file. On a read error the file is kept (the next client reads it) and nothing is returned.
    func takeSpilled() -> [(tag: UInt64, event: Event)] {
        guard let overflow, !spilledTags.isEmpty else { return [] }
        let events: [Event]
        do { events = try overflow.load().events } catch {
            logger.error("cannot read the hold overflow file; it is kept", metadata: ["path": "\(overflow.path)", "error": "\(error)"])
            return []
        }
        // The file holds one event per tag unless it was damaged: keep the newest tags then.
        let tags = Array(spilledTags.suffix(events.count))
        spilledTags.removeAll()
        do { try overflow.remove() } catch {
            logger.error("cannot remove the hold overflow file", metadata: ["path": "\(overflow.path)", "error": "\(error)"])
        }
        return Array(zip(tags, events).map { (tag: $0.0, event: $0.1) })
    }

    /// Sending may resume: reads the overflow back, gives held events the advertising id when
    /// ATT now allows it, and wakes the pump.
    func releaseHeld() async {
        released.append(contentsOf: takeSpilled())
        if gate.forwardsAdvertisingId, let id = await identity.identity.advertisingId {
            let first = firstCallTag
            func patch(_ items: inout Deque<(tag: UInt64, event: Event)>) {
                for i in items.indices where items[i].tag >= first {
                    EventPrivacy.addAdvertisingIdIfMissing(id, to: &items[i].event)
                }
            }
            patch(&released)
            patch(&buffer)
        }
        wakePump()
    }
}
