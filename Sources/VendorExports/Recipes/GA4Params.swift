import JSONCore

/// GA4's repeated key-value records (`event_params`, `user_properties`):
/// `[{"key": "k", "value": {"string_value": ..., "int_value": ..., "float_value": ...,
/// "double_value": ...}}]`, one typed member set.
enum GA4Params {
    /// The object `{key: value}` of the array at `params` (see ``add(_:_:_:special:)``); absent
    /// when nothing is left.
    static func flatten(_ record: Record, _ params: ValueRef, _ work: inout Workspace) -> Piece {
        let mark = work.open()
        add(record, params, &work)
        return work.close(mark)
    }

    /// Adds each parameter of the array at `params` to the object being assembled: its key, and
    /// the first of its typed values that is not `null` (`int_value`, a string in BigQuery's
    /// JSON, as a number when it is exact in a double, else the string). Parameters whose values
    /// are all `null` are left out. The values of the ``Special`` parameters also go to `special`.
    static func add(
        _ record: Record, _ params: ValueRef, _ work: inout Workspace, special: (inout Workspace, Special, Piece) -> Void = { _, _, _ in }
    ) {
        guard params.kind == .array else { return }
        let buf = record.bytes
        var items = ArrayWalker(buf, openingAt: params.range.lowerBound)
        while let item = items.next() {
            guard item.kind == .object else {
                _ = items.skip()
                continue
            }
            let (parameter, end) = keyAndValue(buf, openingAt: item.start)
            items.resume(at: end)
            guard let (key, value) = parameter else { continue }
            work.add(.json(key), value)
            if let kind = specials[buf, MemberRef(span: key, key: key, keyHasEscapes: false, value: ValueRef(range: key, kind: .string))] {
                special(&work, kind, value)
            }
        }
    }

    /// The parameters whose values also give a Segment field.
    enum Special: Sendable {
        /// `page_location`, `page_title`, `page_referrer` and `firebase_screen`.
        case pageLocation, pageTitle, pageReferrer, screenName
    }

    /// The special parameters by key. (Looked up with the key string's range as a whole: the
    /// quotes are part of each name.)
    private static let specials = KeyMap<Special>([
        (#""page_location""#, .pageLocation), (#""page_title""#, .pageTitle), (#""page_referrer""#, .pageReferrer),
        (#""firebase_screen""#, .screenName),
    ])

    /// The members of a typed value, by key.
    private enum Typed: Sendable { case string, integer, real }
    private static let typed = KeyMap<Typed>([
        ("string_value", .string), ("int_value", .integer), ("float_value", .real), ("double_value", .real),
    ])

    /// One parameter's key (a JSON string's range, with its quotes) and the piece of its value
    /// (nil when it has no key or only `null` values), and one past the parameter's closing brace.
    private static func keyAndValue(_ buf: UnsafeBufferPointer<UInt8>, openingAt start: Int) -> ((Range<Int>, Piece)?, Int) {
        var key: Range<Int>?
        var value: Piece?
        var parameter = ObjectWalker(buf, openingAt: start)
        while let m = parameter.next() {
            if m.kind == .object, RecordText.keyIs(buf, m.member(endingAt: m.valueStart), "value") {
                var typedMembers = ObjectMembers(buf, openingAt: m.valueStart)
                while let t = typedMembers.next() {
                    guard value == nil, t.value.kind != .null else { continue }
                    switch typed[buf, t] {
                    case .string, .real: value = .json(t.value.range)
                    case .integer: value = integer(buf, t.value)
                    case nil: continue
                    }
                }
                while typedMembers.next() != nil {}  // to the value's end
                parameter.resume(at: typedMembers.end!)
            } else {
                let member = parameter.skip()
                if member.value.kind == .string, RecordText.keyIs(buf, member, "key") { key = member.value.range }
            }
        }
        guard let key, let value else { return (nil, parameter.end!) }
        return ((key, value), parameter.end!)
    }

    /// An INT64 value (a string of digits in BigQuery's JSON, or a number): a JSON number when it
    /// has at most 15 digits (exact in a double) written as JSON writes a number (no leading
    /// zero: `"007"` is not one), else the string as written.
    private static func integer(_ buf: UnsafeBufferPointer<UInt8>, _ v: ValueRef) -> Piece {
        guard v.kind == .string, let text = v.plainText(buf), RecordText.integer(text) != nil else { return .json(v.range) }
        let sign = text.first == UInt8(ascii: "-") ? 1 : 0
        let digits = text.count - sign
        guard digits <= 15, digits == 1 || text[sign] != UInt8(ascii: "0") else { return .json(v.range) }
        return .json((v.range.lowerBound + 1)..<(v.range.upperBound - 1))
    }
}
