import JSONCore

/// A JSON value inside a validated record: where it is and what kind it is.
package struct ValueRef {
    /// The value's bytes.
    package let range: Range<Int>
    /// The value's kind.
    package let kind: JSONKind

    /// The value of an object member.
    @inline(__always)
    init(_ member: JSONMember) {
        range = member.value
        kind = member.kind
    }

    /// A value found at `range`.
    @inline(__always)
    package init(range: Range<Int>, kind: JSONKind) {
        self.range = range
        self.kind = kind
    }
}

/// How the recipes turn a vendor's values into pieces of a Segment event.
extension Piece {
    /// The value as it is; absent for `null`.
    @inline(__always)
    static func value(_ v: ValueRef) -> Piece { v.kind == .null ? .absent : .json(v.range) }

    /// A scalar for a context field: strings (except the empty string), numbers and booleans as
    /// they are; absent for `null`, `""`, objects and arrays.
    @inline(__always)
    static func scalar(_ v: ValueRef) -> Piece {
        switch v.kind {
        case .string: return v.range.count > 2 ? .json(v.range) : .absent
        case .number, .bool: return .json(v.range)
        default: return .absent
        }
    }

    /// An identifier: a non-empty string as it is, a number's exact text as a string (64-bit
    /// ids stay exact); absent otherwise.
    @inline(__always)
    static func id(_ v: ValueRef) -> Piece {
        switch v.kind {
        case .string: return v.range.count > 2 ? .json(v.range) : .absent
        case .number: return .quoted(UInt32(v.range.lowerBound), UInt32(v.range.upperBound))
        default: return .absent
        }
    }

    /// An object with at least one member, as it is; absent otherwise.
    @inline(__always)
    static func object(_ v: ValueRef, in buffer: UnsafeBufferPointer<UInt8>) -> Piece {
        guard v.kind == .object, !ValueRef.isEmptyContainer(buffer, v.range) else { return .absent }
        return .json(v.range)
    }
}

extension ValueRef {
    /// Whether the object or array at `range` has nothing but whitespace between its brackets.
    @inline(__always)
    static func isEmptyContainer(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        for p in (range.lowerBound + 1)..<(range.upperBound - 1) {
            let c = buffer[p]
            if !c.isJSONWhitespace { return false }
        }
        return true
    }

    /// The text of a string's content without escapes, or of a number: the bytes an integer or a
    /// timestamp is read from. nil for other kinds and escaped strings.
    @inline(__always)
    func plainText(_ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        switch kind {
        case .number: return UnsafeBufferPointer(rebasing: buffer[range])
        case .string:
            guard let inner = RecordText.plainContent(buffer, range) else { return nil }
            return UnsafeBufferPointer(rebasing: buffer[inner])
        default: return nil
        }
    }

    /// The value as an integer: a JSON integer, or a string of one (how BigQuery and mParticle
    /// write 64-bit integers).
    func integer(_ buffer: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let text = plainText(buffer) else { return nil }
        return RecordText.integer(text)
    }
}
