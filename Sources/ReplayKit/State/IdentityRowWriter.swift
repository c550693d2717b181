import SQLiteSupport

/// Writes a commit's identity rows to one table, many rows per statement: SQLite's cost per
/// statement (reset, cursor, transaction bookkeeping, binding copies) is most of what a one-row
/// upsert costs, so rows are buffered and sent ``IdentityUpserts/rowsPerStatement`` at a time
/// as `INSERT OR REPLACE … VALUES (?, ?), (?, ?), …`, their bytes bound from one buffer without
/// a copy. Only correct for rows with distinct keys (``IdentityStore``'s commit keeps the last
/// row of each key), since the order among them then does not matter.
struct IdentityRowWriter {
    let upserts: IdentityUpserts
    /// Deletes a row by key (the anonymousId table's logouts).
    let delete: SQLiteDatabase.Statement
    private var bytes: [UInt8] = []
    /// Each buffered row's key, then its value, in `bytes`.
    private var ranges: [Range<Int>] = []

    init(_ upserts: IdentityUpserts, delete: SQLiteDatabase.Statement) {
        self.upserts = upserts
        self.delete = delete
    }

    /// Writes `row` (a logout deletes at once; an upsert is buffered).
    mutating func add(_ row: LearnedRow) throws {
        try row.withKey { key in
            guard row.kind != .forgetUser else { return try add(key: key, value: nil) }
            try row.withValue { try add(key: key, value: $0) }
        }
    }

    /// Writes the row `key` → `value`; a nil `value` deletes `key`'s row at once (a logout), a
    /// value is buffered.
    mutating func add(key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?) throws {
        guard let value else { return try upserts.db.run(delete, key) }
        append(key)
        append(value)
        if ranges.count == 2 * IdentityUpserts.rowsPerStatement { try flush() }
    }

    /// Writes the buffered rows.
    mutating func flush() throws {
        guard !ranges.isEmpty else { return }
        let statement = try upserts.statement(rows: ranges.count / 2)
        try bytes.withUnsafeBufferPointer { try upserts.db.run(statement, texts: $0, ranges) }
        bytes.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        bytes.append(contentsOf: text)
        ranges.append(start..<bytes.count)
    }
}

/// One identity table's upserts of 1 ... ``rowsPerStatement`` rows, each prepared on first use
/// and kept for the store's life.
final class IdentityUpserts {
    /// The most rows in one statement.
    static let rowsPerStatement = 32

    let db: SQLiteDatabase
    private let sqlPrefix: String
    private var prepared: [SQLiteDatabase.Statement?] = Array(repeating: nil, count: rowsPerStatement)

    /// The upserts into `table`, whose columns are `key` (the primary key) and `value`.
    init(_ db: SQLiteDatabase, table: String, key: String, value: String) {
        self.db = db
        sqlPrefix = "INSERT OR REPLACE INTO \(table) (\(key), \(value)) VALUES "
    }

    /// The upsert of `n` rows (1 ... ``rowsPerStatement``).
    func statement(rows n: Int) throws -> SQLiteDatabase.Statement {
        if let s = prepared[n - 1] { return s }
        let s = try db.prepare(sqlPrefix + Array(repeating: "(?, ?)", count: n).joined(separator: ", "))
        prepared[n - 1] = s
        return s
    }
}
