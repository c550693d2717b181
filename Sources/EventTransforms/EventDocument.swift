import JSONCore

/// One event while the steps run: its objects' members, each still the bytes it was read from,
/// an object of the source that a step reached into (its members listed in turn), or a value
/// that a step wrote.
///
/// Nothing is parsed into a tree but values that a step reads whole or writes: a step that
/// renames `properties.$price` lists the members of the event and of its `properties`, and
/// moves one member; everything else is copied from the source when the event is rendered, so
/// values (numbers' text, strings as escaped) come out as they came in. One document per
/// transformer, reused from event to event: the member lists hold plain values (ranges and
/// indexes), so refilling them costs no reference counting, and keep their storage.
struct EventDocument {
    /// Where a member's key is.
    enum Key {
        /// The key's content (without quotes) in the source, and whether it holds escapes.
        case source(Range<Int>, escaped: Bool)
        /// A key that a step wrote: its index in ``addedKeys``.
        case added(Int)
    }

    /// Where a member's value is.
    enum Slot {
        /// The value's bytes in the source, and its kind.
        case source(Range<Int>, JSONKind)
        /// A value that a step wrote: its index in ``trees``.
        case tree(Int)
        /// An object whose members are listed: its index in ``objects``.
        case object(Int)
    }

    /// One member of an object.
    struct Member {
        /// The member's key.
        var key: Key
        /// The member's value.
        var slot: Slot
    }

    /// An object whose members are listed: the event (``objects``[0]), or an object inside it.
    struct Object {
        /// The members, in order (duplicated keys included, as in the source).
        var members: [Member] = []
    }

    /// A value taken out of, or put into, the document.
    enum Content {
        /// Bytes of the source, and their kind.
        case source(Range<Int>, JSONKind)
        /// A tree.
        case tree(JSONValue)
        /// A listed object of this document (see ``Slot/object(_:)``).
        case object(Int)
    }

    /// The bytes that `.source` keys and values are in: valid only from the ``load(_:compact:)``
    /// that set them until the end of the same ``EventTransformer/apply(_:into:)`` call, which
    /// owns (or borrows from its caller) the memory; ``unload()`` forgets them.
    private(set) var source = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// The event object's range in ``source``.
    private(set) var objectRange = 0..<0
    /// Whether ``source`` is compact JSON (written by this module), so it is copied as it is.
    private(set) var sourceIsCompact = false
    /// The listed objects; the first ``objectCount`` are in use, the event first. The others
    /// keep their storage for later events.
    var objects: [Object] = []
    /// How many of ``objects`` are in use.
    private(set) var objectCount = 0
    /// The keys that steps wrote.
    var addedKeys: [String] = []
    /// The values that steps wrote.
    var trees: [JSONValue] = []
    /// Whether a step changed the event since it was loaded.
    var isEdited = false
    /// Scratch storage for scanning objects.
    private var layout = ObjectLayout()

    /// Validates `source` as one JSON object and starts working on it. `compact` says the
    /// bytes are known to be compact JSON.
    mutating func load(_ source: UnsafeBufferPointer<UInt8>, compact: Bool) throws(JSONError) {
        unload()
        try ObjectLayout.scanDocument(source, reusing: &layout)
        self.source = source
        objectRange = layout.range
        sourceIsCompact = compact
        isEdited = false
        listMembers(in: reserveObject())
    }

    /// Forgets the source (whose memory is about to go), keeping the storage for the next event.
    mutating func unload() {
        for k in 0..<objectCount { objects[k].members.removeAll(keepingCapacity: true) }
        objectCount = 0
        if !addedKeys.isEmpty { addedKeys.removeAll(keepingCapacity: true) }
        if !trees.isEmpty { trees.removeAll(keepingCapacity: true) }
        source = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Lists the members of the source's object at `range` (inside the validated event), and
    /// returns its index in ``objects``.
    mutating func openObject(_ range: Range<Int>) -> Int {
        // The event was validated, so skimming the object finds exactly its members.
        guard ObjectLayout.skimNested(source, range, reusing: &layout) else {
            preconditionFailure("an object inside a validated event did not skim")
        }
        let k = reserveObject()
        listMembers(in: k)
        return k
    }

    /// A new, empty object (for a write through a missing key or a null); its index.
    mutating func newObject() -> Int {
        reserveObject()
    }

    /// The next unused object of ``objects`` (made if needed), now in use and empty.
    private mutating func reserveObject() -> Int {
        if objectCount == objects.count { objects.append(Object()) }
        objectCount += 1
        return objectCount - 1
    }

    /// Copies ``layout``'s members into object `k`.
    private mutating func listMembers(in k: Int) {
        for m in layout.members {
            objects[k].members.append(Member(key: .source(m.key, escaped: m.keyHasEscapes), slot: .source(m.value, m.kind)))
        }
    }

    /// Appends a member named `key` holding `slot` to object `o`.
    mutating func appendMember(_ key: String, _ slot: Slot, to o: Int) {
        addedKeys.append(key)
        objects[o].members.append(Member(key: .added(addedKeys.count - 1), slot: slot))
    }

    /// A slot holding `content` (a tree is stored in ``trees``).
    mutating func slot(for content: Content) -> Slot {
        switch content {
        case .source(let range, let kind): return .source(range, kind)
        case .object(let k): return .object(k)
        case .tree(let value):
            trees.append(value)
            return .tree(trees.count - 1)
        }
    }

    /// What `slot` holds.
    func content(of slot: Slot) -> Content {
        switch slot {
        case .source(let range, let kind): return .source(range, kind)
        case .tree(let t): return .tree(trees[t])
        case .object(let k): return .object(k)
        }
    }
}
