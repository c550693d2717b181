extension EventTemplate {
    /// The longest cell text an error quotes.
    static let quotedValueLimit = 120
    /// `null`.
    static let null: [UInt8] = Array("null".utf8)

    /// Appends the event for `record` (which has one field per column) to `out`.
    /// - Throws: ``CSVError/badCell(record:column:value:reason:)`` for a cell that is not a
    ///   value of its column's type; `out` then holds a partial event.
    func render(_ record: CSVRecord, into out: inout [UInt8]) throws(CSVError) {
        out.append(UInt8(ascii: "{"))
        // The rule for `stack`: it is uninitialized Int memory (a trivial type) of 2 * depth
        // slots; `run` writes each slot before it reads it and never goes deeper than `depth`
        // levels (the template's nesting). It is freed when the closure returns, and nothing
        // keeps a pointer into it. The other buffers are the arrays' storage, valid in their
        // closures, and only read.
        let failure: CSVError? = withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * depth) { stack in
            steps.withUnsafeBufferPointer { steps in
                pool.withUnsafeBufferPointer { pool in
                    record.bytes.withUnsafeBufferPointer { fields in
                        record.fieldEnds.withUnsafeBufferPointer { ends in
                            run(steps, pool, fields, ends, stack, record, &out)
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
        out.append(UInt8(ascii: "}"))
    }

    /// Walks the steps for one record; returns the error of a bad cell.
    ///
    /// Step bytes are ranges of `pool` and field ranges come from `ends` (each within `fields`,
    /// as the record reader built them), so every `rebasing` view lies inside its buffer; the
    /// views are copied into `out` at once.
    ///
    /// `stack` holds, per open object from the root (level 0) in, where its member began in
    /// `out` (at `2 * level`, to take it out again when it gets no members) and how many
    /// members it has so far (at `2 * level + 1`); it has room for ``depth`` levels.
    private func run(
        _ steps: UnsafeBufferPointer<Step>, _ pool: UnsafeBufferPointer<UInt8>, _ fields: UnsafeBufferPointer<UInt8>,
        _ ends: UnsafeBufferPointer<Int>, _ stack: UnsafeMutableBufferPointer<Int>, _ record: CSVRecord, _ out: inout [UInt8]
    ) -> CSVError? {
        var level = 0
        stack[1] = 0
        for step in steps {
            switch step.kind {
            case .open:
                let mark = out.count
                if stack[2 * level + 1] > 0 { out.append(UInt8(ascii: ",")) }
                level += 1
                stack[2 * level] = mark
                stack[2 * level + 1] = 0
                out.appendRaw(UnsafeBufferPointer(rebasing: pool[step.bytes]))
            case .close:
                if stack[2 * level + 1] == 0 {
                    out.removeLast(out.count - stack[2 * level])
                    level -= 1
                } else {
                    out.append(UInt8(ascii: "}"))
                    level -= 1
                    stack[2 * level + 1] += 1
                }
            case .constant:
                if stack[2 * level + 1] > 0 { out.append(UInt8(ascii: ",")) }
                out.appendRaw(UnsafeBufferPointer(rebasing: pool[step.bytes]))
                stack[2 * level + 1] += 1
            case .cell:
                let cell = UnsafeBufferPointer(rebasing: fields[(step.column == 0 ? 0 : ends[step.column - 1])..<ends[step.column]])
                let mark = out.count
                if stack[2 * level + 1] > 0 { out.append(UInt8(ascii: ",")) }
                out.appendRaw(UnsafeBufferPointer(rebasing: pool[step.bytes]))
                switch CellConversion.append(cell, as: step.type, to: &out) {
                case .written:
                    stack[2 * level + 1] += 1
                case .empty where emptyCells == .null:
                    out.append(contentsOf: Self.null)
                    stack[2 * level + 1] += 1
                case .empty:
                    out.removeLast(out.count - mark)
                case .invalid(let reason):
                    return badCell(record, column: step.column, cell, reason)
                }
            }
        }
        return nil
    }

    /// The error for a cell that is not a value of its type.
    private func badCell(_ record: CSVRecord, column: Int, _ cell: UnsafeBufferPointer<UInt8>, _ reason: String) -> CSVError {
        var value = String(decoding: cell, as: UTF8.self)
        if value.count > Self.quotedValueLimit { value = String(value.prefix(Self.quotedValueLimit)) + "…" }
        return .badCell(record: record.number, column: columns[column], value: value, reason: reason)
    }
}
