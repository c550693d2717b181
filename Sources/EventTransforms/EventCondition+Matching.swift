import JSONCore

/// Testing an event against a `keep`/`drop` condition.
extension EventCondition {
    /// Whether the event matches every criterion of the condition.
    func matches(_ document: inout EventDocument) -> Bool {
        if let types, document.withString(SegmentKeys.type, { Self.isOne(of: types, $0) }) != true { return false }
        if let events, document.withString(SegmentKeys.event, { Self.isOne(of: events, $0) }) != true { return false }
        if let field, !field.holds(in: &document) { return false }
        return true
    }

    /// Whether `bytes` are the UTF-8 bytes of one of `names`.
    private static func isOne(of names: [String], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        names.contains { $0.utf8.elementsEqual(bytes) }
    }
}

extension FieldTest {
    /// Whether the test holds for the event.
    func holds(in document: inout EventDocument) -> Bool {
        switch test {
        case .exists(let wanted): return document.contains(path) == wanted
        case .equals(let expected): return document.value(at: path)?.matches(expected) ?? false
        case .oneOf(let candidates):
            guard let value = document.value(at: path) else { return false }
            return candidates.contains { value.matches($0) }
        }
    }
}
