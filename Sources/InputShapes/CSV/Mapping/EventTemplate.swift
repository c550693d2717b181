import JSONCore

/// A ``CSVMapping`` fitted to a header: the steps that write one compact JSON event per record,
/// in member order, with keys and constants encoded once.
struct EventTemplate {
    /// One step of writing an event. Steps are plain values: their bytes are ranges of
    /// ``pool``, so walking them retains nothing.
    struct Step {
        /// What the step does.
        enum Kind: UInt8 {
            /// Opens a nested object: `"key":{` (the bytes) is written.
            case open
            /// Closes it; an object that got no members is taken out again.
            case close
            /// Writes a constant member, `"key":value` (the bytes).
            case constant
            /// Writes a member fed by a column: `"key":` (the bytes), then the cell's value.
            case cell
        }

        /// What the step does.
        var kind: Kind
        /// Its bytes in ``pool``.
        var bytes: Range<Int> = 0..<0
        /// The column of a ``Kind/cell`` step.
        var column = 0
        /// The type of a ``Kind/cell`` step.
        var type: CSVCellType = .string
    }

    /// The steps, in order.
    let steps: [Step]
    /// The encoded keys and constants the steps write.
    let pool: [UInt8]
    /// How deep objects nest (the root is 1).
    let depth: Int
    /// What empty cells become.
    let emptyCells: CSVMapping.EmptyCells
    /// The header's column names, for errors.
    let columns: [String]

    /// Fits `mapping` to the columns of a header.
    /// - Throws: ``CSVError/header(_:)`` when a mapped column is missing or named twice, or
    ///   when targets clash.
    init(mapping: CSVMapping, columns: [String]) throws(CSVError) {
        do {
            try mapping.checkTargets()
        } catch {
            throw .header(error.description)
        }
        let root = TemplateNode()
        for constant in mapping.constants {
            root.insert(constant.target.components[...], .constant(constant.value))
        }
        var mapped = Set<String>()
        for field in mapping.fields {
            let column = try Self.column(field.column, in: columns)
            mapped.insert(field.column)
            root.insert(field.target.components[...], .cell(column: column, type: field.type))
        }
        if mapping.unmappedColumns == .properties {
            try Self.collect(columns.indices.filter { !mapped.contains(columns[$0]) }, of: columns, into: root)
        }
        var steps: [Step] = []
        var pool: [UInt8] = []
        self.depth = root.emit(into: &steps, pool: &pool)
        self.steps = steps
        self.pool = pool
        self.emptyCells = mapping.emptyCells
        self.columns = columns
    }

    /// The index of the column named `name`, which must appear exactly once.
    private static func column(_ name: String, in columns: [String]) throws(CSVError) -> Int {
        let matches = columns.indices.filter { columns[$0].utf8.elementsEqual(name.utf8) }
        guard let first = matches.first else {
            throw .header("the mapping names column \"\(name)\", which the header does not have (it has: \(columns.joined(separator: ", ")))")
        }
        guard matches.count == 1 else {
            throw .header(
                "column \"\(name)\" appears \(matches.count) times in the header (columns \(matches.map { String($0 + 1) }.joined(separator: ", ")))")
        }
        return first
    }

    /// Adds the columns at `indices` to `properties`, each as a string member named as its
    /// column.
    private static func collect(_ indices: [Int], of columns: [String], into root: TemplateNode) throws(CSVError) {
        let properties = root.object(named: "properties")
        for index in indices {
            let name = columns[index]
            guard !name.isEmpty else {
                throw .header("column \(index + 1) has no name, and unmapped_columns: properties needs one; map it or drop unmapped columns")
            }
            guard properties.child(named: name) == nil else {
                throw .header(
                    "column \"\(name)\" would be properties.\(name), which is already set (the column appears twice, or the mapping sets that member)"
                )
            }
            properties.insert([name], .cell(column: index, type: .string))
        }
    }
}
