import CSQLite

/// Keeps accepted events in an embedded SQLite database, table `events`
/// (`seq` INTEGER PRIMARY KEY, `message_id` TEXT, `body` TEXT with the event JSON).
///
/// Each request's events are inserted in one transaction.
actor SQLiteStore: EventStore {
    private var db: OpaquePointer?
    private var insert: OpaquePointer?

    /// SQLite's "transient" destructor: copy the bound bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
            == SQLITE_OK, let handle
        else {
            sqlite3_close(handle)
            throw CollectorStoreError(description: "cannot open SQLite database \(path)")
        }
        let setup = """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=OFF;
            CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, message_id TEXT, body TEXT NOT NULL);
            """
        var statement: OpaquePointer?
        guard sqlite3_exec(handle, setup, nil, nil, nil) == SQLITE_OK,
            sqlite3_prepare_v2(handle, "INSERT INTO events (message_id, body) VALUES (?, ?)", -1, &statement, nil)
                == SQLITE_OK
        else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close(handle)
            throw CollectorStoreError(description: "cannot set up SQLite database \(path): \(message)")
        }
        self.db = handle
        self.insert = statement
    }

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw lastError() }
    }

    private func lastError() -> CollectorStoreError {
        CollectorStoreError(description: "SQLite: " + String(cString: sqlite3_errmsg(db)))
    }

    func append(_ events: [StoredEvent]) throws {
        guard db != nil, let insert else { throw CollectorStoreError(description: "the SQLite store is closed") }
        try exec("BEGIN")
        do {
            for e in events {
                sqlite3_reset(insert)
                if let id = e.messageId {
                    sqlite3_bind_text(insert, 1, id, -1, Self.transient)
                } else {
                    sqlite3_bind_null(insert, 1)
                }
                e.json.withUnsafeBufferPointer { p in
                    // UInt8 and CChar have the same size and alignment, which is what
                    // withMemoryRebound requires; SQLite only reads the bytes, within the closure.
                    p.withMemoryRebound(to: CChar.self) { c in
                        _ = sqlite3_bind_text(insert, 2, c.baseAddress, Int32(c.count), Self.transient)
                    }
                }
                guard sqlite3_step(insert) == SQLITE_DONE else { throw lastError() }
            }
            try exec("COMMIT")
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    func close() throws {
        if let insert { sqlite3_finalize(insert) }
        insert = nil
        if let db { sqlite3_close(db) }
        db = nil
    }
}
