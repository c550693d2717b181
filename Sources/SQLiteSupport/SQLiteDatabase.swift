import CSQLite

/// A minimal SQLite connection with cached prepared statements: the package's one SQLite
/// wrapper, used by ReplayKit's identity store and the collector's SQLite event store.
///
/// Not thread-safe: one owner (a single-threaded stage, or an actor).
package final class SQLiteDatabase {
    /// The connection; nil once closed.
    private(set) var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// What every error names first: the database's file, or `in-memory database`.
    private let name: String

    /// Opens (creating) the database at `path`; `:memory:` for a private in-memory one.
    /// - Parameter busyTimeoutMilliseconds: how long a statement waits for another connection's
    ///   lock before failing with `SQLITE_BUSY`; nil installs no busy handler (fail at once).
    /// - Throws: ``SQLiteError`` with `"PATH: SQLite's message"`, as every later call does.
    package init(path: String, busyTimeoutMilliseconds: Int32? = 5000) throws {
        name = path == ":memory:" ? "in-memory database" : path
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            // Closed here and forgotten: `deinit` still runs (the class is fully initialized when
            // `init` throws), and it must not close the handle a second time.
            close()
            throw failure(msg)
        }
        if let busyTimeoutMilliseconds { sqlite3_busy_timeout(db, busyTimeoutMilliseconds) }
    }

    deinit { close() }

    /// Finalizes statements and closes the connection; nothing may use it afterwards.
    package func close() {
        for (_, s) in statements { sqlite3_finalize(s) }
        statements = [:]
        if let db { sqlite3_close(db) }
        db = nil
    }

    /// Runs SQL without results (several statements allowed).
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func execute(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &err) == SQLITE_OK else {
            let msg = err.map { String(cString: $0) } ?? "error"
            sqlite3_free(err)
            throw failure(msg)
        }
    }

    /// The cached statement for `sql` (prepared on first use), reset and with no bindings.
    func statement(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return s
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else { throw lastError() }
        statements[sql] = s
        return s
    }

    /// A statement prepared once and reused (no SQL text lookup per call). It belongs to its
    /// database, which finalizes it when it closes.
    package final class Statement {
        let handle: OpaquePointer
        init(handle: OpaquePointer) { self.handle = handle }
    }

    /// Prepares `sql` for repeated use; it is finalized when the database closes.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func prepare(_ sql: String) throws -> Statement {
        Statement(handle: try statement(sql))
    }

    /// SQLite's message for the last failed call on this connection, after the database's path.
    func lastError() -> SQLiteError { failure(String(cString: sqlite3_errmsg(db))) }

    /// The error for SQLite's `message`: every error of this database names it first.
    private func failure(_ message: String) -> SQLiteError { SQLiteError(message: "\(name): \(message)") }
}
