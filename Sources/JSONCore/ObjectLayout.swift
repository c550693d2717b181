import Foundation

/// Where one member of a JSON object sits in a buffer.
public struct JSONMember: Sendable, Equatable {
    /// The member's span from the key's opening quote to the end of its value.
    public let span: Range<Int>
    /// The key's content, without quotes.
    public let key: Range<Int>
    /// Whether the key holds escape sequences (then compare it decoded).
    public let keyHasEscapes: Bool
    /// The value's bytes.
    public let value: Range<Int>
    /// The value's kind.
    public let kind: JSONKind

    /// The same member `offset` bytes further on (a copy of the same bytes elsewhere).
    func shifted(by offset: Int) -> JSONMember {
        JSONMember(
            span: (span.lowerBound + offset)..<(span.upperBound + offset), key: (key.lowerBound + offset)..<(key.upperBound + offset),
            keyHasEscapes: keyHasEscapes, value: (value.lowerBound + offset)..<(value.upperBound + offset), kind: kind)
    }
}

/// The top-level members of one JSON object, found by a single validating scan.
///
/// The layout holds offsets only. Read values with the same buffer that was scanned.
public struct ObjectLayout: Sendable {
    /// The members in document order.
    public fileprivate(set) var members: [JSONMember]
    /// The object's bytes, from `{` to `}`.
    public fileprivate(set) var range: Range<Int>

    /// An empty layout, for example scratch storage for ``scanDocument(_:reusing:)``.
    public init() {
        members = []
        range = 0..<0
    }

    init(members: [JSONMember], range: Range<Int>) {
        self.members = members
        self.range = range
    }

    /// Validates `buffer` as exactly one JSON object (optional surrounding whitespace) and
    /// records its top-level members. Throws `.unexpectedType` for valid JSON that is not an object.
    public static func scanDocument(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> ObjectLayout {
        var s = JSONScanner(buffer)
        s.skipWhitespace()
        guard s.offset < buffer.count, buffer[s.offset] == UInt8(ascii: "{") else {
            _ = try s.scanDocument()
            throw JSONError(.unexpectedType, at: 0, "the JSON value is not an object")
        }
        let layout = try s.scanMembers(buffer)
        s.skipWhitespace()
        guard s.offset == buffer.count else { throw s.fail("unexpected data after the JSON value") }
        return layout
    }

    /// Like ``scanDocument(_:)``, but stores the result in `layout`, reusing its member storage
    /// (no allocation once the storage is big enough). On error `layout` holds no members.
    public static func scanDocument(_ buffer: UnsafeBufferPointer<UInt8>, reusing layout: inout ObjectLayout) throws(JSONError) {
        var nothing = NestedObject(key: nil)
        try scanDocument(buffer, reusing: &layout, recording: &nothing)
    }

    /// Like ``scanDocument(_:reusing:)``, and records in `nested` the members of an object value
    /// of a top-level member named `nested.key`, validated in the same pass, so that nothing
    /// reads that object again (see ``NestedObject``). On error neither holds members.
    package static func scanDocument(
        _ buffer: UnsafeBufferPointer<UInt8>, reusing layout: inout ObjectLayout, recording nested: inout NestedObject
    ) throws(JSONError) {
        if !layout.members.isEmpty { layout.members.removeAll(keepingCapacity: true) }
        layout.range = 0..<0
        nested.clear()
        var s = JSONScanner(buffer)
        s.skipWhitespace()
        guard s.offset < buffer.count, buffer[s.offset] == UInt8(ascii: "{") else {
            _ = try s.scanDocument()
            throw JSONError(.unexpectedType, at: 0, "the JSON value is not an object")
        }
        do throws(JSONError) {
            layout.range = try s.scanMembers(buffer, into: &layout.members, recording: &nested)
            s.skipWhitespace()
            guard s.offset == buffer.count else { throw s.fail("unexpected data after the JSON value") }
        } catch {
            layout.members.removeAll(keepingCapacity: true)
            layout.range = 0..<0
            nested.clear()
            throw error
        }
    }

    /// Finds the top-level members of the object in `buffer` without validating it (see
    /// ``JSONScanner/skimMembers(into:)``), into `layout`, reusing its member storage. For a
    /// valid JSON object the members are exactly those ``scanDocument(_:reusing:)`` finds; for
    /// other bytes it may succeed or fail. False (and `layout` empty) when the bytes are not
    /// shaped like an object. What comes after the object is not looked at.
    public static func skimDocument(_ buffer: UnsafeBufferPointer<UInt8>, reusing layout: inout ObjectLayout) -> Bool {
        if !layout.members.isEmpty { layout.members.removeAll(keepingCapacity: true) }
        layout.range = 0..<0
        var s = JSONScanner(buffer)
        s.skipWhitespace()
        guard s.offset < buffer.count, buffer[s.offset] == UInt8(ascii: "{"), let range = s.skimMembers(into: &layout.members) else {
            layout.members.removeAll(keepingCapacity: true)
            return false
        }
        layout.range = range
        return true
    }

    /// Records the members of the object at `range`, a value inside a document that was already
    /// validated (a member of a layout from ``scanDocument(_:reusing:)`` of the same buffer), into
    /// `layout`, reusing its member storage. The object is skimmed, not validated again (see
    /// ``JSONScanner/skimMembers(into:)``): for a valid object the members are exactly those
    /// ``scanNested(_:_:reusing:)`` finds. Its nested objects and arrays are jumped over by their
    /// brackets, so the larger they are, the less it costs against validating them. False (and
    /// `layout` empty) when the bytes at `range` are not shaped like an object.
    package static func skimNested(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, reusing layout: inout ObjectLayout) -> Bool {
        if !layout.members.isEmpty { layout.members.removeAll(keepingCapacity: true) }
        layout.range = 0..<0
        guard range.lowerBound < range.upperBound, buffer[range.lowerBound] == UInt8(ascii: "{") else { return false }
        var s = JSONScanner(UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]))
        s.i = range.lowerBound
        guard let found = s.skimMembers(into: &layout.members), found == range else {
            layout.members.removeAll(keepingCapacity: true)
            return false
        }
        layout.range = found
        return true
    }

    /// Like ``scanNested(_:_:)``, but stores the result in `layout`, reusing its member storage.
    /// Returns false (and leaves `layout` empty) when `range` is not a valid object.
    public static func scanNested(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, reusing layout: inout ObjectLayout) -> Bool {
        if !layout.members.isEmpty { layout.members.removeAll(keepingCapacity: true) }
        layout.range = 0..<0
        guard range.lowerBound < range.upperBound, buffer[range.lowerBound] == UInt8(ascii: "{") else { return false }
        let sub = UnsafeBufferPointer(rebasing: buffer[..<range.upperBound])
        var s = JSONScanner(sub)
        s.i = range.lowerBound
        do throws(JSONError) {
            layout.range = try s.scanMembers(buffer, into: &layout.members)
            return true
        } catch {
            layout.members.removeAll(keepingCapacity: true)
            return false
        }
    }

    /// Records the members of an already-validated object at `range` (for example a nested
    /// member's value from another layout of the same buffer).
    public static func scanNested(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> ObjectLayout? {
        let sub = UnsafeBufferPointer(rebasing: buffer[..<range.upperBound])
        var s = JSONScanner(sub)
        s.i = range.lowerBound
        guard range.lowerBound < range.upperBound, buffer[range.lowerBound] == UInt8(ascii: "{") else { return nil }
        return try? s.scanMembers(buffer)
    }

    /// Index of the last member named `key`, if any.
    public func index(of key: String, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        var k = key
        return k.withUTF8 { want -> Int? in
            for idx in members.indices.reversed() where keyEquals(members[idx], want, buffer) {
                return idx
            }
            return nil
        }
    }

    /// The last member named `key`, if any.
    public func member(_ key: String, in buffer: UnsafeBufferPointer<UInt8>) -> JSONMember? {
        index(of: key, in: buffer).map { members[$0] }
    }

    /// The decoded string value of member `key`, if it exists and is a string.
    public func string(_ key: String, in buffer: UnsafeBufferPointer<UInt8>) -> String? {
        guard let m = member(key, in: buffer), m.kind == .string else { return nil }
        return JSONLayoutValues.stringContent(buffer, m.value)
    }

    /// The decoded key of `member`.
    public func keyString(_ member: JSONMember, in buffer: UnsafeBufferPointer<UInt8>) -> String {
        JSONStrings.decode(buffer, member.key, hasEscapes: member.keyHasEscapes)
    }

    func keyEquals(_ m: JSONMember, _ want: UnsafeBufferPointer<UInt8>, _ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if m.keyHasEscapes {
            var decoded = JSONStrings.decode(buffer, m.key, hasEscapes: true)
            return decoded.withUTF8 { $0.elementsEqual(want) }
        }
        guard m.key.count == want.count else { return false }
        var p = m.key.lowerBound
        for c in want {
            if buffer[p] != c { return false }
            p += 1
        }
        return true
    }
}

/// Helpers that read values out of a scanned buffer.
public enum JSONLayoutValues {
    /// Decodes a string value's range (including its quotes).
    public static func stringContent(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> String {
        let inner = (value.lowerBound + 1)..<(value.upperBound - 1)
        var escaped = false
        for p in inner where buffer[p] == UInt8(ascii: "\\") {
            escaped = true
            break
        }
        return JSONStrings.decode(buffer, inner, hasEscapes: escaped)
    }
}

extension JSONScanner {
    /// Scans an object at the current offset (which must be `{`) and records its members.
    mutating func scanMembers(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> ObjectLayout {
        var members: [JSONMember] = []
        members.reserveCapacity(12)
        let range = try scanMembers(buffer, into: &members)
        return ObjectLayout(members: members, range: range)
    }

    /// Scans an object at the current offset (which must be `{`), appends its members to
    /// `members` and returns the object's range.
    mutating func scanMembers(_ buffer: UnsafeBufferPointer<UInt8>, into members: inout [JSONMember]) throws(JSONError) -> Range<Int> {
        var nothing = NestedObject(key: nil)
        return try scanMembers(buffer, into: &members, recording: &nothing)
    }

    /// Scans an object at the current offset (which must be `{`), nested `depth` deep (1: the
    /// document), appends its members to `members` and returns the object's range. A member
    /// named `nested.key` whose value is an object has that object's members recorded in
    /// `nested` as it is validated (``NestedObject``).
    mutating func scanMembers(
        _ buffer: UnsafeBufferPointer<UInt8>, into members: inout [JSONMember], depth: Int = 1, recording nested: inout NestedObject
    ) throws(JSONError) -> Range<Int> {
        let open = i
        i += 1
        skipWhitespace()
        if i < end, base[i] == UInt8(ascii: "}") {
            i += 1
            return open..<i
        }
        repeat {
            let (key, esc) = try memberKey()
            skipWhitespace()
            let valueStart = i
            let kind: JSONKind
            if nested.wants(key, escaped: esc, at: self) {
                try record(buffer, &nested, depth: depth)
                nested.index = members.count
                kind = .object
            } else {
                kind = try scanValue(depth: depth)
            }
            // The member's span starts at the key's opening quote.
            members.append(
                JSONMember(span: (key.lowerBound - 1)..<i, key: key, keyHasEscapes: esc, value: valueStart..<i, kind: kind))
        } while try !endOfItem(closing: UInt8(ascii: "}"), "object")
        return open..<i
    }
}

extension JSONScanner {
    /// Records the object value at the current offset in `nested` (a member of an object at
    /// `depth`): replayed when it repeats the last one recorded, else scanned as `scanValue`
    /// would (an object one level deeper, its members' values at that depth), with the same
    /// errors at the same places. Out of line: inlined into `scanMembers`, the loop over every
    /// member of a line, it made that loop dearer for lines whose context is not replayed.
    @inline(never)
    mutating func record(_ buffer: UnsafeBufferPointer<UInt8>, _ nested: inout NestedObject, depth: Int) throws(JSONError) {
        if let objectEnd = nested.replay(at: self, depth: depth) {
            i = objectEnd
            return
        }
        var none = NestedObject(key: nil)
        nested.layout.range = try scanMembers(buffer, into: &nested.layout.members, depth: depth + 1, recording: &none)
        nested.remember(buffer, depth: depth)
    }
}

/// The members of one object value inside a document, recorded while the document is validated
/// (``ObjectLayout/scanDocument(_:reusing:recording:)``), so that nothing reads the object again:
/// the value of the LAST top-level member whose key is ``key`` (written without escapes) and whose
/// value is an object. Its ``layout`` is then exactly what ``ObjectLayout/skimNested(_:_:reusing:)``
/// gives for that value. Reused from document to document: its member storage is kept, and so
/// is the last object it recorded, which a later document that repeats it byte for byte gets
/// without a scan (``replay(at:depth:)``).
package struct NestedObject {
    /// The key to record, as bytes; nil records nothing.
    package let key: [UInt8]?
    /// The key's length (-1 for none), compared first, for every member, without reading the key.
    private let keyCount: Int
    /// The recorded members (none when ``index`` is nil).
    package var layout = ObjectLayout()
    /// The recorded member's index in the document's layout; nil when none was recorded.
    package var index: Int?

    /// The bytes of the object the last scan recorded, and its members with offsets from its
    /// first byte (empty: none kept), and the depth of the object holding it. An SDK's events
    /// carry the same context line after line.
    private var lastBytes: [UInt8] = []
    private var lastMembers: [JSONMember] = []
    private var lastDepth = 0
    /// Only objects of this many bytes or more are kept: a shorter one scans about as fast as it
    /// compares, and keeping it would cost every line a copy.
    package static let minimumKeptBytes = 128
    /// Objects longer than this are not kept: copying them would cost more than it saves.
    package static let maximumKeptBytes = 4096
    /// How many objects were recorded by ``replay(at:depth:)`` rather than scanned.
    package private(set) var replays = 0
    /// Objects scanned since the last replay. Past ``backOffAfter`` of them, only every
    /// ``backOffEvery``-th is kept, and only the object after it is compared with it: where
    /// objects do not repeat (events of many devices, mixed), few lines pay for the copy and the
    /// comparison, and one kept object that repeats ends the back-off.
    private var scannedSinceReplay = 0
    /// Scans without a replay after which keeping objects backs off.
    package static let backOffAfter = 64
    /// While backing off, one scanned object in this many is kept.
    package static let backOffEvery = 16

    package init(key: [UInt8]?) {
        self.key = key
        keyCount = key?.count ?? -1
    }

    /// When the bytes at the scanner's offset start with the object the last scan recorded,
    /// records that object's members there, without scanning, and returns where it ends; else nil.
    ///
    /// Exact: those bytes are a complete object, which the scan found valid as a member of an
    /// object at the same `depth`, and an object's validity and layout depend on its bytes and
    /// its depth alone, never on what follows its closing brace.
    @inline(__always)
    mutating func replay(at scanner: borrowing JSONScanner, depth: Int) -> Int? {
        let n = lastBytes.count
        let start = scanner.i
        // While backing off, only the object right after a kept one is compared.
        guard n > 0, depth == lastDepth, scannedSinceReplay <= Self.backOffAfter || scannedSinceReplay % Self.backOffEvery == 0,
            scanner.end - start >= n
        else { return nil }
        // `start + n <= end` keeps the compared bytes inside the scanner's buffer, and
        // `lastBytes` holds n bytes.
        let same = lastBytes.withUnsafeBytes { memcmp(scanner.base + start, $0.baseAddress!, n) == 0 }
        guard same else { return nil }
        for m in lastMembers { layout.members.append(m.shifted(by: start)) }
        layout.range = start..<(start + n)
        replays &+= 1
        scannedSinceReplay = 0
        return start + n
    }

    /// Keeps the object just recorded (its bytes in `buffer` and its members), a member of an
    /// object at `depth`, for ``replay(at:depth:)``, unless it backs off (see ``backOffAfter``).
    mutating func remember(_ buffer: UnsafeBufferPointer<UInt8>, depth: Int) {
        scannedSinceReplay &+= 1
        if scannedSinceReplay > Self.backOffAfter, scannedSinceReplay % Self.backOffEvery != 0 { return }
        let r = layout.range
        if !lastBytes.isEmpty {
            lastBytes.removeAll(keepingCapacity: true)
            lastMembers.removeAll(keepingCapacity: true)
        }
        guard r.count >= Self.minimumKeptBytes, r.count <= Self.maximumKeptBytes else { return }
        lastBytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[r]))
        for m in layout.members { lastMembers.append(m.shifted(by: -r.lowerBound)) }
        lastDepth = depth
    }

    /// Forgets what was recorded, keeping the member storage.
    mutating func clear() {
        if !layout.members.isEmpty { layout.members.removeAll(keepingCapacity: true) }
        layout.range = 0..<0
        index = nil
    }

    /// Whether the member whose key is at `key` (escaped or not), with the scanner at its
    /// value, is one to record: its key is ``key`` and its value starts with `{`. Clears what an
    /// earlier member of the same key left (a later one wins, as it does in a layout).
    @inline(__always)
    mutating func wants(_ keyRange: Range<Int>, escaped: Bool, at scanner: borrowing JSONScanner) -> Bool {
        guard keyRange.count == keyCount, let key, !key.isEmpty, !escaped, scanner.i < scanner.end,
            scanner.base[scanner.i] == UInt8(ascii: "{")
        else { return false }
        // `keyRange` lies inside the scanner's buffer (a scanned key), and `key` has as many
        // bytes: every read is inside both. A key of 4 to 8 bytes is compared as two words that
        // overlap (no call); unaligned loads of UInt8 memory.
        let same = key.withUnsafeBufferPointer { want -> Bool in
            let have = UnsafeRawPointer(scanner.base + keyRange.lowerBound)
            let n = want.count
            guard n >= 4, n <= 8 else { return memcmp(have, want.baseAddress!, n) == 0 }
            let wanted = UnsafeRawPointer(want.baseAddress!)
            return have.loadUnaligned(as: UInt32.self) == wanted.loadUnaligned(as: UInt32.self)
                && have.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == wanted.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        }
        if same { clear() }
        return same
    }
}
