import JSONCore

/// Writes bytes into room measured in advance, checking every write against the room's end
/// (a write past it traps before it writes). Short copies are done inline, eight bytes at a time,
/// instead of calling `memmove` for each piece. It holds pointers into the room it was given,
/// which its creator keeps valid while it writes (``Workspace/render(_:into:events:)``: the
/// room `ByteCursor.write(count:_:)` lends).
struct RoomWriter {
    private var next: UnsafeMutablePointer<UInt8>
    private let limit: UnsafeMutablePointer<UInt8>

    /// A writer of the `count` bytes at `start`.
    init(_ start: UnsafeMutablePointer<UInt8>, count: Int) {
        next = start
        limit = start + count
    }

    /// Whether exactly the measured room was written.
    var isFull: Bool { next == limit }

    /// Writes one byte.
    @inline(__always)
    mutating func byte(_ b: UInt8) {
        // The rule that keeps writes inside the room: nothing is written at or past `limit`.
        precondition(next < limit, "RoomWriter: more bytes than measured")
        next.pointee = b
        next += 1
    }

    /// Writes `count` bytes from `source`.
    @inline(__always)
    mutating func bytes(_ source: UnsafePointer<UInt8>, _ count: Int) {
        // Same rule: the copy ends at or before `limit`; `source` holds `count` bytes (a slice of
        // the record, the scratch bytes or a static string, by the callers).
        precondition(limit - next >= count, "RoomWriter: more bytes than measured")
        if count <= 32 {
            var k = 0
            while count - k >= 8 {
                // k + 8 <= count: both 8-byte accesses stay inside the source and the room; both
                // are unaligned (loadUnaligned, and storeBytes, which needs no alignment since
                // SE-0349).
                UnsafeMutableRawPointer(next + k).storeBytes(of: UnsafeRawPointer(source + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                k += 8
            }
            while k < count {
                next[k] = source[k]
                k += 1
            }
        } else {
            next.update(from: source, count: count)
        }
        next += count
    }

    /// Writes the text of a static string (no quotes).
    @inline(__always)
    mutating func text(_ s: StaticString) {
        // `utf8Start` points at the literal's `utf8CodeUnitCount` bytes for the program's
        // lifetime.
        bytes(s.utf8Start, s.utf8CodeUnitCount)
    }
}

/// Where pieces point: the record, the scratch bytes, the assembled members and items and the
/// context fields. Valid only inside ``Workspace/render(_:into:events:)``, which lends it the
/// workspace's storage.
struct PieceSources {
    /// The record's bytes.
    let record: UnsafeBufferPointer<UInt8>
    /// The workspace's scratch bytes.
    let scratch: UnsafeBufferPointer<UInt8>
    /// The assembled members.
    let members: UnsafeBufferPointer<Member>
    /// The assembled items.
    let items: UnsafeBufferPointer<Piece>
    /// The context fields, by raw value.
    let context: UnsafeBufferPointer<Piece>
    /// Which context fields are present (bit k: field k).
    let present: UInt64

    /// The number of bytes ``write(_:to:)`` writes for `piece`.
    @inline(__always)
    func length(_ piece: Piece) -> Int {
        if case .contextFields = piece { return contextLength() }
        return piece.length
    }

    /// Writes `piece`.
    func write(_ piece: Piece, to w: inout RoomWriter) {
        // A `.record`, `.quoted` or `.scratch` piece's range lies inside its buffer: the recipes
        // make them from ranges a scan of the record found, or from bytes they appended to the
        // scratch bytes; so `baseAddress! + a` and the `b - a` bytes after it are inside it.
        switch piece {
        case .absent: return
        case .record(let a, let b): w.bytes(record.baseAddress! + Int(a), Int(b &- a))
        case .scratch(let a, let b): w.bytes(scratch.baseAddress! + Int(a), Int(b &- a))
        case .quoted(let a, let b):
            w.byte(UInt8(ascii: "\""))
            w.bytes(record.baseAddress! + Int(a), Int(b &- a))
            w.byte(UInt8(ascii: "\""))
        case .bool(let v): w.text(v ? "true" : "false")
        case .text(let s):
            w.byte(UInt8(ascii: "\""))
            w.text(s)
            w.byte(UInt8(ascii: "\""))
        case .object(let a, let b, _):
            w.byte(UInt8(ascii: "{"))
            for k in Int(a)..<Int(b) {
                if k > Int(a) { w.byte(UInt8(ascii: ",")) }
                let m = members[k]
                write(m.key, to: &w)
                guard m.value.isPresent else { continue }
                w.byte(UInt8(ascii: ":"))
                write(m.value, to: &w)
            }
            w.byte(UInt8(ascii: "}"))
        case .array(let a, let b, _):
            w.byte(UInt8(ascii: "["))
            for k in Int(a)..<Int(b) {
                if k > Int(a) { w.byte(UInt8(ascii: ",")) }
                write(items[k], to: &w)
            }
            w.byte(UInt8(ascii: "]"))
        case .contextFields: writeContext(to: &w)
        }
    }
}

extension PieceSources {
    /// The length of the context object: `{"section":{"key":value,...},...,"key":value}`.
    func contextLength() -> Int {
        var n = 1  // `{`; every member below counts its separator (`,` or the closing `}`)
        for section in ContextField.sections where present & section.fields != 0 {
            n += section.key.utf8CodeUnitCount + 3 + 1 + fieldsLength(present & section.fields) + 1
        }
        n += fieldsLength(present & ContextField.loose)
        return n == 1 ? 2 : n  // `{}` when no field is present
    }

    /// The length of the context fields in `bits` as members, each with one separator.
    private func fieldsLength(_ bits: UInt64) -> Int {
        var n = 0
        forEachField(bits) { k in n += ContextField.keys[k].utf8CodeUnitCount + 3 + context[k].length + 1 }
        return n
    }

    /// Calls `body` with the number of each context field in `bits`, lowest first.
    @inline(__always)
    private func forEachField(_ bits: UInt64, _ body: (Int) -> Void) {
        var bits = bits
        while bits != 0 {
            body(bits.trailingZeroBitCount)
            bits &= bits - 1
        }
    }

    /// Writes the context object (``contextLength()`` bytes).
    private func writeContext(to w: inout RoomWriter) {
        var first = true
        w.byte(UInt8(ascii: "{"))
        for section in ContextField.sections where present & section.fields != 0 {
            if !first { w.byte(UInt8(ascii: ",")) }
            first = false
            writeKey(section.key, to: &w)
            w.byte(UInt8(ascii: "{"))
            var firstInner = true
            writeFields(present & section.fields, first: &firstInner, to: &w)
            w.byte(UInt8(ascii: "}"))
        }
        writeFields(present & ContextField.loose, first: &first, to: &w)
        w.byte(UInt8(ascii: "}"))
    }

    /// Writes the context fields in `bits` as members, each after a comma unless it is `first`.
    private func writeFields(_ bits: UInt64, first: inout Bool, to w: inout RoomWriter) {
        forEachField(bits) { k in
            if !first { w.byte(UInt8(ascii: ",")) }
            first = false
            writeKey(ContextField.keys[k], to: &w)
            write(context[k], to: &w)
        }
    }

    /// Writes `"key":`.
    @inline(__always)
    private func writeKey(_ key: StaticString, to w: inout RoomWriter) {
        w.byte(UInt8(ascii: "\""))
        w.text(key)
        w.byte(UInt8(ascii: "\""))
        w.byte(UInt8(ascii: ":"))
    }
}

extension Workspace {
    /// Writes the planned event to `out` as one compact JSON object and appends its range to
    /// `events`.
    mutating func render(_ record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], events: inout [Range<Int>]) {
        let start = out.count
        scratch.withUnsafeBufferPointer { scratch in
            members.withUnsafeBufferPointer { members in
                items.withUnsafeBufferPointer { items in
                    context.withPieces { pieces in
                        let sources = PieceSources(
                            record: record, scratch: scratch, members: members, items: items, context: pieces,
                            present: context.present)
                        Self.render(plan, sources, into: &out)
                    }
                }
            }
        }
        events.append(start..<out.count)
    }

    /// Measures, then writes, the event in one reservation of `out`.
    private static func render(_ plan: EventPlan, _ sources: PieceSources, into out: inout [UInt8]) {
        /// The length of `key` and `piece`, when the piece is present.
        @inline(__always) func measure(_ key: StaticString, _ piece: Piece) -> Int {
            piece.isPresent ? key.utf8CodeUnitCount + sources.length(piece) : 0
        }
        var total = 2 + plan.type.member.utf8CodeUnitCount
        total += measure(#","event":"#, plan.event) + measure(#","name":"#, plan.name) + measure(#","userId":"#, plan.userId)
        total += measure(#","anonymousId":"#, plan.anonymousId) + measure(#","groupId":"#, plan.groupId)
        total += measure(#","previousId":"#, plan.previousId) + measure(#","messageId":"#, plan.messageId)
        total += measure(#","timestamp":"#, plan.timestamp) + measure(#","properties":"#, plan.properties)
        total += measure(#","traits":"#, plan.traits) + measure(#","context":"#, plan.context)
        total += measure(#","integrations":"#, plan.integrations)
        for k in Int(plan.extra.lowerBound)..<Int(plan.extra.upperBound) { total += 1 + sources.members[k].length }
        out.appendBytes(upTo: total) { cursor in
            cursor.write(count: total) { room in
                var w = RoomWriter(room, count: total)
                /// Writes `key` and `piece`, when the piece is present.
                @inline(__always) func member(_ key: StaticString, _ piece: Piece) {
                    guard piece.isPresent else { return }
                    w.text(key)
                    sources.write(piece, to: &w)
                }
                w.byte(UInt8(ascii: "{"))
                w.text(plan.type.member)
                member(#","event":"#, plan.event)
                member(#","name":"#, plan.name)
                member(#","userId":"#, plan.userId)
                member(#","anonymousId":"#, plan.anonymousId)
                member(#","groupId":"#, plan.groupId)
                member(#","previousId":"#, plan.previousId)
                member(#","messageId":"#, plan.messageId)
                member(#","timestamp":"#, plan.timestamp)
                member(#","properties":"#, plan.properties)
                member(#","traits":"#, plan.traits)
                member(#","context":"#, plan.context)
                member(#","integrations":"#, plan.integrations)
                for k in Int(plan.extra.lowerBound)..<Int(plan.extra.upperBound) {
                    w.byte(UInt8(ascii: ","))
                    sources.write(.object(UInt32(k), UInt32(k + 1), length: 0), to: &w, bare: true)
                }
                w.byte(UInt8(ascii: "}"))
                // Every byte of the measured room is written (no uninitialized byte is kept).
                precondition(w.isFull, "RoomWriter: fewer bytes than measured")
            }
        }
    }
}

extension PieceSources {
    /// Writes the members of an object piece without its braces (the plan's extra members).
    func write(_ piece: Piece, to w: inout RoomWriter, bare: Bool) {
        guard case .object(let a, let b, _) = piece else { return write(piece, to: &w) }
        for k in Int(a)..<Int(b) {
            if k > Int(a) { w.byte(UInt8(ascii: ",")) }
            let m = members[k]
            write(m.key, to: &w)
            guard m.value.isPresent else { continue }
            w.byte(UInt8(ascii: ":"))
            write(m.value, to: &w)
        }
    }
}
