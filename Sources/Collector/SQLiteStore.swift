import SQLiteSupport

/// Keeps accepted events in an embedded SQLite database, table `events`
/// (`seq` INTEGER PRIMARY KEY, `message_id` TEXT, `body` TEXT with the event JSON).
///
/// Each request's events are inserted in one transaction.
actor SQLiteStore: EventStore {
    /// The connection; nil once closed.
    private var db: SQLiteDatabase?
    private let insert: SQLiteDatabase.Statement

    init(path: String) throws {
        let db: SQLiteDatabase
        do {
            // No busy handler: the store is the database's only user.
            db = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: nil)
        } catch {
            throw CollectorStoreError(description: "cannot open SQLite database \(path)")
        }
        do {
            try db.execute(
                """
                PRAGMA journal_mode=WAL;
                PRAGMA synchronous=OFF;
                CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, message_id TEXT, body TEXT NOT NULL);
                """)
            insert = try db.prepare("INSERT INTO events (message_id, body) VALUES (?, ?)")
        } catch let error as SQLiteError {
            db.close()
            throw CollectorStoreError(description: "cannot set up SQLite database \(path): \(error.message)")
        }
        self.db = db
    }

    func append(_ events: [StoredEvent]) throws {
        guard let db else { throw CollectorStoreError(description: "the SQLite store is closed") }
        do {
            try db.execute("BEGIN")
            do {
                for e in events { try add(e, to: db) }
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        } catch let error as SQLiteError {
            throw CollectorStoreError(description: "SQLite: " + error.message)
        }
    }

    /// Inserts one event: its messageId (NULL without one) and its JSON, as exact UTF-8 bytes.
    private func add(_ e: StoredEvent, to db: SQLiteDatabase) throws {
        try e.json.withUnsafeBufferPointer { body in
            if var id = e.messageId {
                try id.withUTF8 { try db.run(insert, $0, body) }
            } else {
                try db.run(insert, nil, body)
            }
        }
    }

    func close() throws {
        db?.close()
        db = nil
    }
}
