import CJQ
import JSONCore

/// Writes a jq step's output object as compact JSON, reusing the input's bytes wherever jq left
/// a value equal to the one it read.
///
/// jq 1.6 holds every number as a double, so writing its output as it is would rewrite every
/// number of the event (`1.50` as `1.5`, a 64-bit id rounded). Instead the output is compared
/// with the input, object by object: a member jq left equal (as jq compares) is copied from
/// the input's bytes, exactly; an object member that changed is compared member by member in
/// turn; any other changed or new value (arrays as a whole) is written as jq writes it.
enum JQMerge {
    /// Appends `output` (an object `jv` the caller owns and keeps) to `out`. `original` (an
    /// object `jv` the caller owns and keeps) is what jq read at the same place: the object
    /// whose bytes are `source[range]`.
    static func appendObject(_ output: jv, original: jv, source: UnsafeBufferPointer<UInt8>, range: Range<Int>, into out: inout [UInt8]) {
        var layout = ObjectLayout()
        // `source[range]` is validated JSON (a loaded event or its rendering), so skimming finds
        // exactly its members.
        let skimmed = ObjectLayout.skimNested(source, range, reusing: &layout)
        out.append(UInt8(ascii: "{"))
        var first = true
        // The iteration functions only look at `output`, which the caller keeps alive.
        var i = jv_object_iter(output)
        while jv_object_iter_valid(output, i) != 0 {
            // `jv_object_iter_key` and `jv_object_iter_value` return new references, which this
            // iteration owns and frees.
            let key = jv_object_iter_key(output, i)
            let value = jv_object_iter_value(output, i)
            defer {
                jv_free(key)
                jv_free(value)
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JQValues.withBytes(key) { JSONStrings.appendQuotedBytes($0, to: &out) }
            out.append(UInt8(ascii: ":"))
            let member = skimmed ? JQValues.withBytes(key) { lastMember(named: $0, in: layout, source) } : nil
            if let member {
                appendMember(value, key: key, was: member, original: original, source: source, into: &out)
            } else {
                JQValues.appendJSON(value, into: &out)
            }
            i = jv_object_iter_next(output, i)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends `value`, the output's member `key` (both owned and kept by the caller), whose
    /// input counterpart is `member` of the object `original` (likewise).
    private static func appendMember(
        _ value: jv, key: jv, was member: JSONMember, original: jv, source: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]
    ) {
        // `jv_object_get` consumes both arguments (so they get new references) and returns the
        // member's value (invalid when absent), which we own and free.
        let before = jv_object_get(jv_copy(original), jv_copy(key))
        defer { jv_free(before) }
        // `jv_equal` consumes both arguments: new references again.
        if jv_equal(jv_copy(before), jv_copy(value)) != 0 {
            if member.kind == .object || member.kind == .array {
                CompactCopy.append(source, member.value, into: &out)
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[member.value]))
            }
        } else if member.kind == .object, jv_get_kind(value) == JV_KIND_OBJECT, jv_get_kind(before) == JV_KIND_OBJECT {
            appendObject(value, original: before, source: source, range: member.value, into: &out)
        } else {
            JQValues.appendJSON(value, into: &out)
        }
    }

    /// The last member of `layout` (of an object in `source`) whose key's UTF-8 bytes are `key`.
    private static func lastMember(named key: UnsafeBufferPointer<UInt8>, in layout: ObjectLayout, _ source: UnsafeBufferPointer<UInt8>)
        -> JSONMember?
    {
        for member in layout.members.reversed() {
            if member.keyHasEscapes {
                if JSONStrings.decode(source, member.key, hasEscapes: true).utf8.elementsEqual(key) { return member }
            } else if member.key.count == key.count, UnsafeBufferPointer(rebasing: source[member.key]).elementsEqual(key) {
                return member
            }
        }
        return nil
    }
}
