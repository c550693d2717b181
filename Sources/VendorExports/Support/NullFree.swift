import JSONCore

extension Workspace {
    /// The object at `value` without its `null` members (the members kept are copied as written);
    /// absent when nothing is left. Uses the workspace's `inner3` layout.
    mutating func withoutNulls(_ record: Record, _ value: ValueRef) -> Piece {
        guard Workspace.skim(record, value, into: &inner3) else { return .absent }
        let mark = open()
        for m in inner3.members where m.kind != .null { addVerbatim(m) }
        return close(mark)
    }

    /// The array at `value` with each object item written ``withoutNulls(_:_:)``, other items as
    /// they are and `null` items left out; absent when nothing is left.
    mutating func withoutNulls(array record: Record, _ value: ValueRef) -> Piece {
        guard value.kind == .array else { return .absent }
        let mark = openArray()
        for item in ArrayItems(record.bytes, value.range) {
            switch item.kind {
            case .null: continue
            case .object: addItem(withoutNulls(record, item))
            default: addItem(.json(item.range))
            }
        }
        return closeArray(mark)
    }
}
