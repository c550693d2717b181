import SQLiteSupport

/// Reads back the collector's SQLite store.
enum SQLiteReader {
    struct Row {
        var messageId: String?
        var body: String
    }

    static func rows(_ path: String) throws -> [Row] {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        return try db.queryRows("SELECT message_id, body FROM events ORDER BY seq").map {
            Row(messageId: $0[0], body: $0[1] ?? "")
        }
    }
}
