import CSQLite

/// A failed SQLite call.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's message.
    package let message: String
    /// The message.
    package var description: String { "sqlite: \(message)" }
}

// SQLite wants to copy bound text (SQLITE_TRANSIENT), which the C macro cannot express in Swift.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A minimal SQLite connection with cached prepared statements. Not thread-safe: one owner.
final class SQLiteDatabase {
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating) the database at `path`; `:memory:` for a private in-memory one.
    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw SQLiteError(message: "\(path): \(msg)")
        }
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    /// Finalizes statements and closes the connection.
    func close() {
        for (_, s) in statements { sqlite3_finalize(s) }
        statements = [:]
        if let db { sqlite3_close(db) }
        db = nil
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &err) == SQLITE_OK else {
            let msg = err.map { String(cString: $0) } ?? "error"
            sqlite3_free(err)
            throw SQLiteError(message: msg)
        }
    }

    private func statement(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return s
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else {
            throw SQLiteError(message: String(cString: sqlite3_errmsg(db)))
        }
        statements[sql] = s
        return s
    }

    /// A statement prepared once and reused (no SQL text lookup per call).
    final class Statement {
        fileprivate let handle: OpaquePointer
        fileprivate init(handle: OpaquePointer) { self.handle = handle }
    }

    /// Prepares `sql` for repeated use; it is finalized when the database closes.
    func prepare(_ sql: String) throws -> Statement {
        Statement(handle: try statement(sql))
    }

    /// Runs a prepared statement with two text parameters given as UTF-8 bytes (exact lengths:
    /// no C-string truncation).
    func run(_ st: Statement, _ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) throws {
        let s = st.handle
        sqlite3_reset(s)
        bindText(s, 1, first)
        bindText(s, 2, second)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
    }

    /// Runs a prepared statement with one text parameter given as UTF-8 bytes.
    func run(_ st: Statement, _ only: UnsafeBufferPointer<UInt8>) throws {
        let s = st.handle
        sqlite3_reset(s)
        bindText(s, 1, only)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
    }

    /// The first column of the first row of a prepared query with one text parameter, all as
    /// UTF-8 bytes.
    func queryBytes(_ st: Statement, _ param: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        let s = st.handle
        sqlite3_reset(s)
        bindText(s, 1, param)
        defer { sqlite3_reset(s) }
        let rc = sqlite3_step(s)
        if rc == SQLITE_ROW {
            let n = Int(sqlite3_column_bytes(s, 0))
            guard let text = sqlite3_column_text(s, 0) else { return [] }
            return Array(UnsafeBufferPointer(start: text, count: n))
        }
        guard rc == SQLITE_DONE else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
        return nil
    }

    private func bindText(_ s: OpaquePointer, _ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        // An empty buffer may have no base address; SQLite needs a non-NULL pointer for "".
        let empty: StaticString = ""
        let p = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(empty.utf8Start)
        // The memory is bound to UInt8 (the buffer's bytes, or a StaticString's code units, which
        // live as long as the program); CChar is UInt8's same-size signed counterpart, a related
        // type that may access it. SQLite copies the bytes (`transient`) before returning.
        sqlite3_bind_text(s, index, p.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
    }

    /// Runs a statement with text parameters.
    func run(_ sql: String, _ params: [String]) throws {
        let s = try statement(sql)
        for (i, p) in params.enumerated() { sqlite3_bind_text(s, Int32(i + 1), p, -1, transient) }
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
    }

    /// The first column of the first row, as text.
    func queryText(_ sql: String, _ params: [String]) throws -> String? {
        let s = try statement(sql)
        for (i, p) in params.enumerated() { sqlite3_bind_text(s, Int32(i + 1), p, -1, transient) }
        defer { sqlite3_reset(s) }
        let rc = sqlite3_step(s)
        if rc == SQLITE_ROW, let text = sqlite3_column_text(s, 0) { return String(cString: text) }
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
        return nil
    }

    /// The first column of every row, as text.
    func queryTexts(_ sql: String, _ params: [String]) throws -> [String] {
        let s = try statement(sql)
        for (i, p) in params.enumerated() { sqlite3_bind_text(s, Int32(i + 1), p, -1, transient) }
        defer { sqlite3_reset(s) }
        var out: [String] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return out }
            guard rc == SQLITE_ROW else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
            if let text = sqlite3_column_text(s, 0) { out.append(String(cString: text)) }
        }
    }
}
