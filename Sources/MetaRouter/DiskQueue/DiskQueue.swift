import Foundation
import JSONCore
import Timestamps

/// The SDK's offline snapshot, `queue.v1.json`: `{"version":1,"events":[...]}`.
///
/// Writes are atomic. Reading is resilient: an event that is not a valid event object is
/// skipped, not the whole file, and a file cut short keeps the events before the cut. An unknown
/// version reads as empty. With `maxAge` set, events whose `timestamp` is older are dropped,
/// as the SDK does with its 7-day rule.
package struct DiskQueue: Sendable {
    /// The snapshot format version this type reads and writes.
    package static let version = 1
    /// The SDK's default age cap: 7 days.
    package static let sevenDays: Duration = .seconds(7 * 86_400)

    /// Where the snapshot lives.
    package let path: String
    /// Events older than this are dropped when loading; `nil` keeps all.
    package var maxAge: Duration?
    let fileSystem: any FileSystem

    /// A queue file at `path`.
    package init(path: String, maxAge: Duration? = DiskQueue.sevenDays, fileSystem: any FileSystem = LocalFileSystem()) {
        self.path = path
        self.maxAge = maxAge
        self.fileSystem = fileSystem
    }

    /// What a load found.
    package struct Snapshot: Sendable, Equatable {
        /// The events that passed, in order.
        package var events: [Event]
        /// Elements skipped because they were not valid events.
        package var corrupt: Int
        /// Events dropped by the age cap.
        package var expired: Int
        /// The file's version, when it had one.
        package var version: Int?
        /// Whether there was a file (a missing file is an empty snapshot).
        package var found = true
        /// Whether the events could be read: a supported version, or a damaged file whose
        /// version stood after the damage (its complete events are in ``events``).
        package var readable = true
        /// Whether the file is damaged: bytes after its complete events could not be read (they
        /// count as one ``corrupt`` element). Keep the file for a person before replacing it.
        package var damaged = false
    }

    /// Loads the snapshot. A missing file is an empty snapshot.
    package func load(now: Date = Date()) throws -> Snapshot {
        guard let bytes = try fileSystem.read(path) else {
            return Snapshot(events: [], corrupt: 0, expired: 0, version: nil, found: false)
        }
        return Self.decode(bytes, now: now, maxAge: maxAge)
    }

    /// Moves a snapshot this type cannot read (another version, or no version to be found) to
    /// `<path>.unreadable-<epoch millis>`, so that its events are kept for a person or a newer
    /// reader instead of being overwritten. Returns the new path.
    package func setAside(now: Date = Date()) throws -> String {
        let target = besidePath("unreadable", now: now)
        try fileSystem.move(path, to: target)  // fails rather than overwrite an earlier one
        return target
    }

    /// `<path>.<label>-<epoch millis>`: where files that must not replace the snapshot go.
    package func besidePath(_ label: String, now: Date) -> String {
        "\(path).\(label)-\(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))"
    }

    /// Writes `events` atomically (creating the file's directory).
    package func save(_ events: [Event]) throws {
        try fileSystem.createDirectory(containing: path)
        try fileSystem.writeAtomically(path, Self.encode(events))
    }

    /// Deletes the snapshot, as the SDK does after a successful rehydration.
    package func remove() throws { try fileSystem.remove(path) }

    /// The snapshot bytes for `events`.
    package static func encode(_ events: [Event]) -> [UInt8] {
        var out = Array("{\"version\":\(version),\"events\":[".utf8)
        for (k, e) in events.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.write(e.json, into: &out)
        }
        out.append(contentsOf: Array("]}".utf8))
        return out
    }

    /// Decodes snapshot bytes resiliently; see the type's documentation. The bytes after a
    /// break (a file cut short) count as one corrupt element.
    package static func decode(_ bytes: [UInt8], now: Date = Date(), maxAge: Duration? = nil) -> Snapshot {
        var reader = SnapshotReader(bytes: bytes)
        var raw: [[UInt8]] = []
        // In memory, the source cannot fail.
        guard
            let summary = try? reader.walk(onEvent: {
                raw.append(Array($0.bytes)); return true
            })
        else {
            return Snapshot(events: [], corrupt: 0, expired: 0, version: nil)
        }
        let found: Int? = if case .integer(let v) = summary.version { v } else { nil }
        guard summary.isSupported else {
            return Snapshot(events: [], corrupt: 0, expired: 0, version: found, readable: false)
        }
        var result = Snapshot(
            events: [], corrupt: summary.tailBytes > 0 ? 1 : 0, expired: 0, version: found, damaged: summary.isDamaged)
        let cutoff: Int64? = maxAge.map { age in
            Int64(now.timeIntervalSince1970 * 1000) - age.components.seconds * 1000
        }
        for element in raw {
            guard let event = try? Event(parsing: element[...]) else {
                result.corrupt += 1
                continue
            }
            if let cutoff, let ts = event.timestamp, let millis = Timestamp.epochMillis(ts), millis < cutoff {
                result.expired += 1
                continue
            }
            result.events.append(event)
        }
        return result
    }
}

extension DiskQueue {
    /// Where the client's hold overflow file lives for the snapshot at `queuePath`: the SDK's
    /// `overflow.v1.json` beside `queue.v1.json` (`x.queue.v1.json` → `x.overflow.v1.json`),
    /// else `<queuePath>.overflow.v1.json`.
    package static func overflowPath(forQueue queuePath: String) -> String {
        if queuePath.hasSuffix("queue.v1.json") {
            return String(queuePath.dropLast("queue.v1.json".count)) + "overflow.v1.json"
        }
        return queuePath + ".overflow.v1.json"
    }

    /// Appends `events` to the file (read, append, atomic write), keeping at most `cap` of the
    /// newest. Returns how many of the oldest were dropped to stay within `cap`.
    package func append(_ events: [Event], cap: Int) throws -> Int {
        var all = try load().events
        all.append(contentsOf: events)
        let excess = max(0, all.count - cap)
        if excess > 0 { all.removeFirst(excess) }
        try save(all)
        return excess
    }
}
