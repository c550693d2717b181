import CSQLite

// SQLite copies bound text before `sqlite3_bind_text` returns when the destructor argument is
// SQLITE_TRANSIENT, `(sqlite3_destructor_type)-1` in C, which the C macro cannot express in
// Swift: the package's one spelling of it.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension SQLiteDatabase {
    /// Runs a prepared statement with two text parameters given as UTF-8 bytes (exact lengths:
    /// no C-string truncation); a nil `first` binds NULL.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func run(_ st: Statement, _ first: UnsafeBufferPointer<UInt8>?, _ second: UnsafeBufferPointer<UInt8>) throws {
        let s = st.handle
        sqlite3_reset(s)
        if let first { bindText(s, 1, first) } else { sqlite3_bind_null(s, 1) }
        bindText(s, 2, second)
        try step(s)
    }

    /// Runs a prepared statement with one text parameter given as UTF-8 bytes.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func run(_ st: Statement, _ only: UnsafeBufferPointer<UInt8>) throws {
        let s = st.handle
        sqlite3_reset(s)
        bindText(s, 1, only)
        try step(s)
    }

    /// Runs a prepared statement whose parameters are all text: parameter `i + 1` is
    /// `bytes[ranges[i]]`, as UTF-8 (exact lengths). The bytes are bound without a copy: SQLite
    /// reads them only while the statement steps, inside this call, and the bindings are cleared
    /// before it returns, so no pointer into `bytes` outlives it. Many rows in one statement
    /// (`VALUES (?, ?), (?, ?), …`) pay SQLite's per-statement cost once.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func run(_ st: Statement, texts bytes: UnsafeBufferPointer<UInt8>, _ ranges: [Range<Int>]) throws {
        let s = st.handle
        sqlite3_reset(s)
        defer { sqlite3_clear_bindings(s) }
        for (i, r) in ranges.enumerated() { bindText(s, Int32(i + 1), UnsafeBufferPointer(rebasing: bytes[r]), copy: false) }
        try step(s)
    }

    /// The first column of the first row of a prepared query with one text parameter, all as
    /// UTF-8 bytes; nil when there is no row.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func queryBytes(_ st: Statement, _ param: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
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
        guard rc == SQLITE_DONE else { throw lastError() }
        return nil
    }

    /// Runs a statement with text parameters (the statement is prepared once and cached).
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func run(_ sql: String, _ params: [String]) throws {
        let s = try statement(sql)
        bindTexts(s, params)
        try step(s)
    }

    /// The first column of the first row, as text; nil when there is no row.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func queryText(_ sql: String, _ params: [String]) throws -> String? {
        let s = try statement(sql)
        bindTexts(s, params)
        defer { sqlite3_reset(s) }
        let rc = sqlite3_step(s)
        if rc == SQLITE_ROW, let text = sqlite3_column_text(s, 0) { return String(cString: text) }
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw lastError() }
        return nil
    }

    /// The first column of every row, as text.
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func queryTexts(_ sql: String, _ params: [String]) throws -> [String] {
        let s = try statement(sql)
        bindTexts(s, params)
        defer { sqlite3_reset(s) }
        var out: [String] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return out }
            guard rc == SQLITE_ROW else { throw lastError() }
            if let text = sqlite3_column_text(s, 0) { out.append(String(cString: text)) }
        }
    }

    /// Every row, each as its columns' text (nil for NULL).
    /// - Throws: ``SQLiteError`` with the database's path and SQLite's message.
    package func queryRows(_ sql: String, _ params: [String] = []) throws -> [[String?]] {
        let s = try statement(sql)
        bindTexts(s, params)
        defer { sqlite3_reset(s) }
        let columns = sqlite3_column_count(s)
        var rows: [[String?]] = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw lastError() }
            rows.append((0..<columns).map { column in sqlite3_column_text(s, column).map { String(cString: $0) } })
        }
    }

    /// Steps a statement that returns no rows that matter, then resets it.
    private func step(_ s: OpaquePointer) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw lastError() }
    }

    /// Binds `params` to parameters 1, 2, ... as C strings (copied by SQLite).
    private func bindTexts(_ s: OpaquePointer, _ params: [String]) {
        for (i, p) in params.enumerated() { sqlite3_bind_text(s, Int32(i + 1), p, -1, transient) }
    }

    /// Binds `bytes` as text parameter `index`: copied by SQLite (`copy`), or not, when the
    /// caller keeps them alive and unchanged until the statement has stepped and its bindings
    /// are cleared (SQLITE_STATIC, a nil destructor).
    private func bindText(_ s: OpaquePointer, _ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>, copy: Bool = true) {
        // An empty buffer may have no base address; SQLite needs a non-NULL pointer for "".
        let empty: StaticString = ""
        let p = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(empty.utf8Start)
        // The memory is bound to UInt8 (the buffer's bytes, or a StaticString's code units, which
        // live as long as the program); CChar is UInt8's same-size signed counterpart, a related
        // type that may access it. SQLite copies the bytes (`transient`) before returning, or,
        // without `copy`, reads them in place while the caller guarantees they live (see above).
        sqlite3_bind_text(s, index, p.assumingMemoryBound(to: CChar.self), Int32(bytes.count), copy ? transient : nil)
    }
}
