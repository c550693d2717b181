/// Splices edits into a scanned JSON object without re-encoding the parts it keeps.
///
/// Members that are not touched are copied byte for byte, so their values (numbers, unicode,
/// key order, nested whitespace) reach the output exactly as they were read.
public struct ObjectEditor {
    /// A plain value (no references), so clearing the list for the next line is cheap.
    enum Edit {
        case keep
        case remove
        /// Replace the value with `replacements[index]`.
        case replace(Int)
    }

    private(set) var layout: ObjectLayout
    /// One entry per layout member, or empty while every member is kept (most nested editors
    /// only append, so they never allocate this).
    var edits: [Edit] = []
    /// The values of `.replace` edits.
    var replacements: [[UInt8]] = []
    /// New members, in order. Their keys match by UTF-8 bytes (`JSONObject.sameKey`),
    /// never by `String ==`, which would merge canonically equivalent keys such as `"é"` and
    /// `"e\u{301}"`.
    var appended: [(key: String, value: [UInt8])] = []

    /// Starts an edit of the object described by `layout`.
    public init(_ layout: ObjectLayout) {
        self.layout = layout
    }

    /// Starts a new edit of `layout`, keeping this editor's storage: once its lists are big
    /// enough, editing line after line allocates nothing for them. Reset to an empty
    /// `ObjectLayout()` to release the previous layout (so its owner can reuse its storage).
    public mutating func reset(_ layout: ObjectLayout) {
        self.layout = layout
        if !edits.isEmpty { edits.removeAll(keepingCapacity: true) }
        if !replacements.isEmpty { replacements.removeAll(keepingCapacity: true) }
        if !appended.isEmpty { appended.removeAll(keepingCapacity: true) }
    }

    /// Records edit `e` for member `index`.
    mutating func mark(_ index: Int, _ e: Edit) {
        if edits.isEmpty { edits.append(contentsOf: repeatElement(.keep, count: layout.members.count)) }
        edits[index] = e
    }

    /// The edit for member `index`.
    func edit(_ index: Int) -> Edit { edits.isEmpty ? .keep : edits[index] }

    /// Removes every member named `key` (compared by UTF-8 bytes). Returns whether one existed
    /// in the original object.
    @discardableResult
    public mutating func remove(_ key: String, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        var k = key
        k.withUTF8 { want in
            for idx in layout.members.indices where layout.keyEquals(layout.members[idx], want, buffer) {
                mark(idx, .remove)
                found = true
            }
        }
        appended.removeAll { JSONObject.sameKey($0.key, key) }
        return found
    }

    /// Removes the member at `index` in the layout.
    public mutating func remove(at index: Int) { mark(index, .remove) }

    /// Sets member `key` to the encoded JSON `value`: replaces the last existing member with
    /// that key (dropping earlier duplicates), or appends a new member. Keys match by UTF-8
    /// bytes, as in ``ObjectLayout``.
    public mutating func set(_ key: String, raw value: [UInt8], in buffer: UnsafeBufferPointer<UInt8>) {
        if let idx = layout.index(of: key, in: buffer) {
            var k = key
            k.withUTF8 { want in
                for j in layout.members.indices where j != idx && layout.keyEquals(layout.members[j], want, buffer) {
                    mark(j, .remove)
                }
            }
            markReplace(idx, value)
        } else if let a = appended.firstIndex(where: { JSONObject.sameKey($0.key, key) }) {
            appended[a].value = value
        } else {
            appended.append((key, value))
        }
    }

    /// Replaces the value of the member at `index` in the layout with the encoded JSON `value`,
    /// keeping its key as written. Unlike ``set(_:raw:in:)`` it leaves other members with the
    /// same key alone: use it when the key is known to occur once.
    public mutating func replace(at index: Int, raw value: [UInt8]) { markReplace(index, value) }

    /// Records a replacement of member `index`'s value.
    mutating func markReplace(_ index: Int, _ value: [UInt8]) {
        if case .replace(let r) = edit(index) {
            replacements[r] = value
        } else {
            mark(index, .replace(replacements.count))
            replacements.append(value)
        }
    }

    /// A capacity that fits the rendered object (exact or a little more).
    public var renderedCapacity: Int {
        var n = layout.range.count + 2
        for (idx, e) in edits.enumerated() {
            if case .replace(let r) = e { n += replacements[r].count + 1 - layout.members[idx].value.count }
        }
        // Each appended member: its quoted key (escapes can make it up to 6 times as long as
        // its UTF-8), `:`, the value and a `,`.
        for (key, v) in appended { n += JSONStrings.quotedCount(key) + v.count + 2 }
        return n
    }

    /// Sets member `key` to a string value.
    public mutating func set(_ key: String, string value: String, in buffer: UnsafeBufferPointer<UInt8>) {
        set(key, raw: JSONStrings.quoted(value), in: buffer)
    }

    /// Whether any edit was made.
    public var hasEdits: Bool {
        !appended.isEmpty || edits.contains { if case .keep = $0 { return false } else { return true } }
    }

    /// Appends the edited object to `out`.
    public func render(_ buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (idx, m) in layout.members.enumerated() {
            switch edit(idx) {
            case .remove: continue
            case .keep:
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[m.span]))
            case .replace(let r):
                let v = replacements[r]
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[m.key.lowerBound - 1..<m.key.upperBound + 1]))
                out.append(UInt8(ascii: ":"))
                out.append(contentsOf: v)
            }
            first = false
        }
        for (key, v) in appended {
            if !first { out.append(UInt8(ascii: ",")) }
            JSONStrings.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: v)
            first = false
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The edited object as new bytes.
    public func rendered(_ buffer: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(layout.range.count + 64)
        render(buffer, into: &out)
        return out
    }
}
