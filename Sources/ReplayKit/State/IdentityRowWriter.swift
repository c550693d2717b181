import SQLiteSupport

/// Writes a commit's identity rows to one table, many rows per statement: SQLite's cost per
/// statement (reset, cursor, transaction bookkeeping, binding copies) is most of what a one-row
/// upsert costs, so rows are buffered and sent ``rowsPerStatement`` at a time as
/// `INSERT OR REPLACE … VALUES (?, ?), (?, ?), …`, their bytes bound from one buffer without a
/// copy. Only correct for rows with distinct keys (``IdentityStore``'s commit keeps the last
/// row of each key), since the order among them then does not matter.
struct IdentityRowWriter {
    /// The most rows in one statement.
    static let rowsPerStatement = 32

    /// The table's upsert of `n` rows, 1 ... ``rowsPerStatement`` (prepared once, then cached).
    let upsert: (_ n: Int) throws -> SQLiteDatabase.Statement
    /// Deletes a row by key (the anonymousId table's logouts).
    let delete: (UnsafeBufferPointer<UInt8>) throws -> Void
    let db: SQLiteDatabase
    private var bytes: [UInt8] = []
    /// Each buffered row's key, then its value, in `bytes`.
    private var ranges: [Range<Int>] = []

    init(
        db: SQLiteDatabase, upsert: @escaping (_ n: Int) throws -> SQLiteDatabase.Statement,
        delete: @escaping (UnsafeBufferPointer<UInt8>) throws -> Void
    ) {
        self.db = db
        self.upsert = upsert
        self.delete = delete
        bytes.reserveCapacity(Self.rowsPerStatement * 64)
        ranges.reserveCapacity(Self.rowsPerStatement * 2)
    }

    /// The SQL that upserts `n` rows into `table` (`key` and `value` its columns).
    static func upsertSQL(table: String, key: String, value: String, rows n: Int) -> String {
        "INSERT OR REPLACE INTO \(table) (\(key), \(value)) VALUES " + Array(repeating: "(?, ?)", count: n).joined(separator: ", ")
    }

    /// Writes `row` (a logout deletes at once; an upsert is buffered).
    mutating func add(_ row: LearnedRow) throws {
        if row.kind == .forgetUser { return try row.withKey(delete) }
        row.withKey { append($0) }
        row.withValue { append($0) }
        if ranges.count == 2 * Self.rowsPerStatement { try flush() }
    }

    /// Writes the buffered rows.
    mutating func flush() throws {
        guard !ranges.isEmpty else { return }
        let statement = try upsert(ranges.count / 2)
        try bytes.withUnsafeBufferPointer { try db.run(statement, texts: $0, ranges) }
        bytes.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        bytes.append(contentsOf: text)
        ranges.append(start..<bytes.count)
    }
}
