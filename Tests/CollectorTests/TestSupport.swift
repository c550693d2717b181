import CSQLite
import GzipCodec

/// Gzips `bytes` (as clients do with `Content-Encoding: gzip`).
func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    try GzipCodec.compress(bytes)
}

/// Reads back the collector's SQLite store.
enum SQLiteReader {
    struct Row {
        var messageId: String?
        var body: String
    }

    struct Failure: Error {}

    static func rows(_ path: String) throws -> [Row] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw Failure() }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(db, "SELECT message_id, body FROM events ORDER BY seq", -1, &statement, nil)
                == SQLITE_OK
        else { throw Failure() }
        defer { sqlite3_finalize(statement) }
        var rows: [Row] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let id = sqlite3_column_text(statement, 0).map { String(cString: $0) }
            let body = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
            rows.append(Row(messageId: id, body: body))
        }
        return rows
    }
}
