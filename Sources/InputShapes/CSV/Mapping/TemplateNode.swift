import JSONCore

/// A member of the event being laid out while an ``EventTemplate`` is built: an object with
/// named children in order, or a value.
final class TemplateNode {
    /// What a value member holds.
    enum Value {
        /// The same value in every event.
        case constant(JSONValue)
        /// A column's cell.
        case cell(column: Int, type: CSVCellType)
    }

    /// The children of an object, in order.
    private(set) var children: [(name: String, node: TemplateNode)] = []
    /// The value, for a member that is not an object.
    private(set) var value: Value?

    /// An empty object.
    init() {}

    /// A value member.
    init(_ value: Value) { self.value = value }

    /// The child named `name`, if any.
    func child(named name: String) -> TemplateNode? {
        children.first { $0.name.utf8.elementsEqual(name.utf8) }?.node
    }

    /// The object child named `name`, added at the end when missing. (Targets are checked not
    /// to clash before, so an existing child of that name is an object.)
    func object(named name: String) -> TemplateNode {
        if let existing = child(named: name) { return existing }
        let node = TemplateNode()
        children.append((name, node))
        return node
    }

    /// Sets the member at `path` below this object to `value`, adding objects on the way.
    func insert(_ path: ArraySlice<String>, _ value: Value) {
        guard let first = path.first else { return }
        if path.count == 1 {
            children.append((first, TemplateNode(value)))
        } else {
            object(named: first).insert(path.dropFirst(), value)
        }
    }

    /// Appends the steps that write this object's members (their bytes to `pool`); returns how
    /// deep objects nest below and including it.
    func emit(into steps: inout [EventTemplate.Step], pool: inout [UInt8]) -> Int {
        var deepest = 1
        for (name, node) in children {
            let from = pool.count
            JSONStrings.appendQuoted(name, to: &pool)
            pool.append(UInt8(ascii: ":"))
            switch node.value {
            case .constant(let constant)?:
                JSONWriter.write(constant, into: &pool)
                steps.append(.init(kind: .constant, bytes: from..<pool.count))
            case .cell(let column, let type)?:
                steps.append(.init(kind: .cell, bytes: from..<pool.count, column: column, type: type))
            case nil:
                pool.append(UInt8(ascii: "{"))
                steps.append(.init(kind: .open, bytes: from..<pool.count))
                deepest = max(deepest, 1 + node.emit(into: &steps, pool: &pool))
                steps.append(.init(kind: .close))
            }
        }
        return deepest
    }
}
