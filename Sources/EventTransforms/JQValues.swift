import CJQ

/// Small helpers around libjq's `jv` values.
///
/// The ownership rule of libjq (jv.h): every `jv_*` function consumes (frees) the `jv`
/// arguments it is given and returns a `jv` its caller owns, except `jv_copy` (which adds a
/// reference) and the accessors that only look: `jv_get_kind`, `jv_string_value`,
/// `jv_object_iter`, `jv_object_iter_next`, `jv_object_iter_valid`, `jv_object_iter_key` and
/// `jv_object_iter_value` (the last two return a new reference). A `jv` is passed by value but
/// names a reference-counted object: giving one away twice, or keeping one given away, is a
/// double free. Each call below says which rule it relies on.
enum JQValues {
    /// Calls `body` with the UTF-8 bytes of `string`, a `jv` string the caller owns and keeps
    /// alive for the call.
    static func withBytes<R>(_ string: jv, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // `jv_string_length_bytes` consumes its argument, so it gets a new reference (jv_copy).
        let count = Int(jv_string_length_bytes(jv_copy(string)))
        // `jv_string_value` only looks: the pointer stays valid while `string` lives, which the
        // caller guarantees for the call. The chars are UTF-8 bytes; UInt8 may access memory
        // bound to CChar (a signed and an unsigned integer of one size may alias).
        let base = UnsafeRawPointer(jv_string_value(string)).assumingMemoryBound(to: UInt8.self)
        return body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The text of `string`, a `jv` string the caller owns (and still owns afterwards).
    static func text(_ string: jv) -> String {
        withBytes(string) { String(decoding: $0, as: UTF8.self) }
    }

    /// Appends the compact JSON of `value` (which the caller owns and keeps) to `out`.
    static func appendJSON(_ value: jv, into out: inout [UInt8]) {
        // `jv_dump_string` consumes its argument: it gets a new reference. Flags 0: compact,
        // UTF-8, no colour. The result is a string we own, freed after copying its bytes.
        let dumped = jv_dump_string(jv_copy(value), 0)
        withBytes(dumped) { out.append(contentsOf: $0) }
        jv_free(dumped)
    }

    /// The message of an error value, consuming `value`: a jq error (an invalid `jv` with a
    /// message), or the message itself (a string, or any value jq's `error` was given).
    static func message(consuming value: jv) -> String {
        switch jv_get_kind(value) {
        case JV_KIND_INVALID:
            // `jv_invalid_get_msg` consumes the invalid and returns its message (null if none).
            return message(consuming: jv_invalid_get_msg(value))
        case JV_KIND_STRING:
            defer { jv_free(value) }  // `text` only looks at the string; we still own it.
            return text(value)
        case JV_KIND_NULL:
            return "error (null)"
        default:
            var out: [UInt8] = []
            appendJSON(value, into: &out)
            jv_free(value)  // `appendJSON` used a copy; our reference goes here.
            return "error (not a string): " + String(decoding: out, as: UTF8.self)
        }
    }

    /// A kind's name in messages: `a string`, `an array`, ...
    static func kindName(_ kind: jv_kind) -> String {
        switch kind {
        case JV_KIND_NULL: return "null"
        case JV_KIND_TRUE, JV_KIND_FALSE: return "a boolean"
        case JV_KIND_NUMBER: return "a number"
        case JV_KIND_STRING: return "a string"
        case JV_KIND_ARRAY: return "an array"
        case JV_KIND_OBJECT: return "an object"
        default: return "an invalid value"
        }
    }
}
