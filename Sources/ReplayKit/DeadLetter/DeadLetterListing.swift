import Foundation

/// What `mr-replay dead-letter list` shows: the dead-lettered events of a state directory, in
/// all its dead-letter files (the current one and its rotations), oldest first.
public struct DeadLetterListing: Codable, Sendable, Equatable {
    /// One dead-lettered event.
    public struct Entry: Codable, Sendable, Equatable {
        /// The dead-letter file holding it, and its line there.
        public var file: String
        public var record: Int
        /// The input and line it came from.
        public var source: String
        public var line: Int
        public var reason: String
        public var detail: String
        /// The event's messageId, when its bytes have one.
        public var messageId: String?

        enum CodingKeys: String, CodingKey {
            case file, record, source, line, reason, detail
            case messageId = "message_id"
        }
    }

    /// The dead-letter files read, oldest first.
    public var files: [String] = []
    /// How many events are listed.
    public var total = 0
    /// Listed events by reason.
    public var reasons: [String: Int] = [:]
    /// The events, oldest first.
    public var events: [Entry] = []

    /// Lists the dead letters of `stateDirectory` (every reason, or only `reason`).
    public static func read(stateDirectory: String, reason: String? = nil) throws -> DeadLetterListing {
        let files = DeadLetterFiles(path: StateDirectory.deadLetterPath(in: stateDirectory))
        var listing = DeadLetterListing()
        for file in files.all() {
            listing.files.append(file)
            for record in try DeadLetterRecord.read(file) where reason == nil || record.reason == reason {
                listing.total += 1
                listing.reasons[record.reason, default: 0] += 1
                listing.events.append(
                    Entry(
                        file: file, record: record.index, source: record.source, line: record.line, reason: record.reason,
                        detail: record.detail, messageId: record.messageId))
            }
        }
        return listing
    }

    /// The listing for people: the counts by reason, then one line per event,
    /// `source:line  reason  messageId  (dead-letter file:record)`.
    public var text: String {
        var out = "\(total) dead-lettered event\(total == 1 ? "" : "s") in \(files.count) file\(files.count == 1 ? "" : "s")\n"
        let width = reasons.keys.map(\.count).max() ?? 0
        for (reason, count) in reasons.sorted(by: { $0.key < $1.key }) {
            out += "  " + reason.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count)\n"
        }
        if !events.isEmpty { out += "\n" }
        let where_ = events.map { "\($0.source):\($0.line)" }
        let whereWidth = where_.map(\.count).max() ?? 0
        for (k, e) in events.enumerated() {
            out +=
                where_[k].padding(toLength: whereWidth, withPad: " ", startingAt: 0) + "  "
                + e.reason.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + (e.messageId ?? "-")
                + "  (\((e.file as NSString).lastPathComponent):\(e.record))\n"
        }
        return out
    }

    /// The listing as pretty, key-sorted JSON.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
