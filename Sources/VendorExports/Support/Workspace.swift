import JSONCore

/// The storage a recipe reuses from record to record, so that converting a record allocates
/// nothing once the storage has grown: the layouts of the objects it reads, the pieces of the
/// event it plans, and the bytes it derives.
struct Workspace {
    /// The record's top-level members.
    var top = ObjectLayout()
    /// The members of one object member of the record (`properties`, `payload`), recorded while
    /// the record is validated, for the recipes that read one (see ``ExportRecipe``).
    var nested = NestedObject(key: nil)
    /// Layouts of nested objects, one per nesting level a recipe reads at once.
    var inner = ObjectLayout(), inner2 = ObjectLayout(), inner3 = ObjectLayout()
    /// Members of the objects assembled for the record's events (see ``open()``).
    var members: [Member] = []
    /// Items of the arrays assembled for the record's events.
    var items: [Piece] = []
    /// Members of the objects still being assembled, innermost last.
    var memberStack: [Member] = []
    /// Items of the arrays still being assembled, innermost last.
    var itemStack: [Piece] = []
    /// Encoded JSON the recipe derives (timestamps, ids, decoded strings).
    var scratch: [UInt8] = []
    /// messageIds derived for the record being converted (``DerivedIds``).
    var derivedIdsInRecord = 0
    /// messageIds derived for the records converted so far.
    var derivedIds = 0
    /// The event being planned.
    var plan = EventPlan()
    /// The context fields of the event being planned.
    var context = ContextFields()
    /// Bytes of a record rewritten before conversion (a JSON-encoded string member decoded).
    var rewritten: [UInt8] = []
    /// The values a recipe's ``KeyTable`` sorted an object's members into (see ``collect(_:from:in:)``).
    var found = Found()

    /// Forgets what the previous record assembled, keeping the storage.
    mutating func startRecord() {
        derivedIdsInRecord = 0
        if !members.isEmpty { members.removeAll(keepingCapacity: true) }
        if !items.isEmpty { items.removeAll(keepingCapacity: true) }
        if !memberStack.isEmpty { memberStack.removeAll(keepingCapacity: true) }
        if !itemStack.isEmpty { itemStack.removeAll(keepingCapacity: true) }
        if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) }
    }

    /// Which of the workspace's layouts ``collect(_:from:in:)`` reads: the record's, or the
    /// recorded nested object's.
    enum LayoutSlot { case top, nested }

    /// Sorts the members of a layout by `table` into ``found``.
    mutating func collect(_ table: KeyTable, from slot: LayoutSlot, in buffer: UnsafeBufferPointer<UInt8>) {
        let members: [JSONMember]
        switch slot {
        case .top: members = top.members
        case .nested: members = nested.index == nil ? [] : nested.layout.members
        }
        found.sort(layout: members, by: table, in: buffer)
    }

    /// The index in ``top`` of the last top-level member named `name`.
    func topIndex(_ name: StaticString, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        top.members.withUnsafeBufferPointer { members in
            for k in members.indices.reversed() where RecordText.keyIs(buffer, MemberRef(members[k]), name) { return k }
            return nil
        }
    }

    /// The last top-level member named `name`.
    func topMember(_ name: StaticString, in buffer: UnsafeBufferPointer<UInt8>) -> MemberRef? {
        topIndex(name, in: buffer).map { MemberRef(top.members[$0]) }
    }

    /// Sorts the members of the object `value` by `table` into ``found``.
    mutating func collect(_ table: KeyTable, object value: ValueRef, in buffer: UnsafeBufferPointer<UInt8>) {
        var members = ObjectMembers(buffer, value)
        found.sort(&members, by: table, in: buffer)
    }

    /// Sorts the members of the object whose `{` is at `start` by `table` into ``found``;
    /// returns one past the object's closing brace (so that the object need not be skipped first).
    mutating func collect(_ table: KeyTable, openingAt start: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Int {
        var members = ObjectMembers(buffer, openingAt: start)
        found.sort(&members, by: table, in: buffer)
        return members.end!
    }

    /// Starts planning an event: an empty plan and, unless `keepingContext`, no context fields.
    mutating func startEvent(keepingContext: Bool = false) {
        plan = EventPlan()
        if !keepingContext { context.clear() }
    }

    /// Starts assembling an object; returns the mark ``close(_:)`` takes. Objects nest: members
    /// added after an inner `open` belong to the inner object until it is closed.
    @inline(__always)
    func open() -> Int { memberStack.count }

    /// Adds a member to the object being assembled; an absent value adds nothing.
    @inline(__always)
    mutating func add(_ key: Piece, _ value: Piece) {
        guard value.isPresent else { return }
        memberStack.append(Member(key: key, value: value))
    }

    /// Adds a member of the record as it is written (`"key":value`, its span).
    @inline(__always)
    mutating func addVerbatim(_ member: JSONMember) {
        memberStack.append(Member(key: .json(member.span), value: .absent))
    }

    /// Adds a member of the record as it is written (`"key":value`, its span).
    @inline(__always)
    mutating func addVerbatim(_ member: MemberRef) {
        memberStack.append(Member(key: .json(member.span), value: .absent))
    }

    /// Adds a member whose key is fixed text.
    @inline(__always)
    mutating func add(_ key: StaticString, _ value: Piece) { add(.text(key), value) }

    /// Ends the object opened at `mark`: `.absent` when it has no members.
    mutating func close(_ mark: Int) -> Piece {
        let count = memberStack.count - mark
        guard count > 0 else { return .absent }
        let start = UInt32(members.count)
        var length = 1 + count  // the braces, and the commas between members
        for k in mark..<memberStack.count {
            let m = memberStack[k]
            length += m.length
            members.append(m)
        }
        memberStack.removeLast(count)
        return .object(start, UInt32(members.count), length: UInt32(length))
    }

    /// Starts assembling an array; returns the mark ``closeArray(_:)`` takes.
    @inline(__always)
    func openArray() -> Int { itemStack.count }

    /// Adds an item to the array being assembled; an absent item adds nothing.
    @inline(__always)
    mutating func addItem(_ item: Piece) {
        guard item.isPresent else { return }
        itemStack.append(item)
    }

    /// Ends the array opened at `mark`: `.absent` when it has no items.
    mutating func closeArray(_ mark: Int) -> Piece {
        let count = itemStack.count - mark
        guard count > 0 else { return .absent }
        let start = UInt32(items.count)
        var length = 1 + count
        for k in mark..<itemStack.count {
            length += itemStack[k].length
            items.append(itemStack[k])
        }
        itemStack.removeLast(count)
        return .array(start, UInt32(items.count), length: UInt32(length))
    }

    /// The members added since `mark` (an ``open()`` of the event's own members), as the plan's
    /// extra range: written at the event's top level.
    mutating func closeExtra(_ mark: Int) -> Range<UInt32> {
        let start = UInt32(members.count)
        members.append(contentsOf: memberStack[mark...])
        memberStack.removeSubrange(mark...)
        return start..<UInt32(members.count)
    }
}
