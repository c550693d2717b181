import Foundation
import JSONCore

/// A few `ObjectEditor` operations, with keys and values taken from the input, checked against
/// ``EditorModel``: the rendered object must be the model's, byte for byte where members are kept.
enum EditorChecks {
    enum Op {
        case set(String, raw: [UInt8])
        case setString(String, String)
        case remove(String)
        case removeAt(Int)
        case replaceAt(Int, raw: [UInt8])
    }

    /// An editor reused from input to input (its storage kept), as the replay hot path reuses
    /// one. The fuzzer calls its entry point from one thread only, so no two calls use it at once.
    nonisolated(unsafe) static var reused = ObjectEditor(ObjectLayout())

    /// Keys every input may use besides its own: canonically equivalent pairs, escapes, controls.
    static let extraKeys = ["", "\u{E9}", "e\u{301}", "type", "k\"q", "a\\b", "\u{1}\u{1F}\u{7F}", "\u{FEFF}", "😀", "\n\t"]
    /// Values every input may use besides its own members' values.
    static let extraValues = ["1", "-0.5e3", "\"x\"", "\"\\u00e9\"", "{}", "[null,true]", "{\"a\":{\"b\":[]}}"]

    static func check(
        _ layout: ObjectLayout, _ object: JSONObject, _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8], rng: inout FuzzRandom
    ) {
        let ops = makeOps(layout, object, buf, input: input, rng: &rng)
        var editor = ObjectEditor(layout)
        var model = EditorModel(object)
        for op in ops { apply(op, to: &editor, &model, buf, input: input) }
        let out = editor.rendered(buf)
        fuzzCheck(
            out.count <= editor.renderedCapacity,
            "rendered \(out.count) bytes, renderedCapacity \(editor.renderedCapacity), after \(ops)", input: input)
        fuzzCheck(editor.hasEdits || out.count <= layout.range.count, "no edits, yet the object grew", input: input)
        compare(out, model, layout, buf, ops: ops, input: input)

        // The same edits on the reused editor render the same bytes.
        reused.reset(layout)
        var shadow = EditorModel(object)
        for op in ops { apply(op, to: &reused, &shadow, buf, input: input) }
        fuzzCheck(reused.rendered(buf) == out, "a reused editor renders differently after \(ops)", input: input)
        reused.reset(ObjectLayout())
    }

    /// Up to eight operations: keys from the object (and their canonically equivalent spellings),
    /// from the raw input and from ``extraKeys``; values from the object's members and ``extraValues``.
    static func makeOps(
        _ layout: ObjectLayout, _ object: JSONObject, _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8], rng: inout FuzzRandom
    ) -> [Op] {
        var keys = extraKeys
        for k in object.keys.prefix(16) {
            keys += [k, k.decomposedStringWithCanonicalMapping, k.precomposedStringWithCanonicalMapping]
        }
        let cut = rng.int(0...min(input.count, 12))
        keys.append(String(decoding: input.prefix(cut), as: UTF8.self))
        var values = extraValues.map { Array($0.utf8) }
        values += layout.members.prefix(16).map { Array(checkedSlice(buf, $0.value)) }
        let count = layout.members.count
        return (0..<rng.int(0...8)).map { _ in
            switch rng.int(0...9) {
            case 0...2: .set(rng.pick(keys), raw: rng.pick(values))
            case 3: .setString(rng.pick(keys), rng.pick(keys))
            case 4...5: .remove(rng.pick(keys))
            case 6...7 where count > 0: .removeAt(rng.int(0...(count - 1)))
            case 8...9 where count > 0: .replaceAt(rng.int(0...(count - 1)), raw: rng.pick(values))
            default: .remove(rng.pick(keys))
            }
        }
    }

    static func apply(
        _ op: Op, to editor: inout ObjectEditor, _ model: inout EditorModel, _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8]
    ) {
        switch op {
        case .set(let key, let raw):
            editor.set(key, raw: raw, in: buf)
            model.set(Array(key.utf8), parsed(raw, input))
        case .setString(let key, let value):
            editor.set(key, string: value, in: buf)
            model.set(Array(key.utf8), .string(value))
        case .remove(let key):
            let found = editor.remove(key, in: buf)
            let expected = model.remove(Array(key.utf8))
            fuzzCheck(found == expected, "remove(\(key.debugDescription)) returned \(found)", input: input)
        case .removeAt(let index):
            editor.remove(at: index)
            model.remove(at: index)
        case .replaceAt(let index, let raw):
            editor.replace(at: index, raw: raw)
            model.replace(at: index, parsed(raw, input))
        }
    }

    static func parsed(_ raw: [UInt8], _ input: [UInt8]) -> JSONValue {
        guard let v = try? JSONParser.parse(raw) else { fuzzFailure("a value from the layout does not parse", input: input) }
        return v
    }

    /// The rendered object must be valid, hold the model's members, copy each kept member's bytes
    /// exactly, and write each replaced member's key as the original wrote it.
    static func compare(
        _ out: [UInt8], _ model: EditorModel, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, ops: [Op], input: [UInt8]
    ) {
        let context = "after \(ops), rendered \(showBytes(out))"
        guard case .object(let rendered)? = try? JSONParser.parse(out),
            let outLayout = out.withUnsafeBufferPointer({ try? ObjectLayout.scanDocument($0) })
        else { fuzzFailure("the editor renders invalid JSON \(context)", input: input) }
        let expected = JSONObject(model.entries.map { (String(decoding: $0.key, as: UTF8.self), $0.value) })
        fuzzCheck(rendered == expected, "the editor's object differs from the model's \(expected) \(context)", input: input)
        out.withUnsafeBufferPointer { o in
            for (k, entry) in model.entries.enumerated() {
                guard let origin = entry.origin else { continue }
                let was = layout.members[origin]
                let now = outLayout.members[k]
                let sameKey = checkedSlice(o, (now.key.lowerBound - 1)..<(now.key.upperBound + 1))
                    .elementsEqual(checkedSlice(buf, (was.key.lowerBound - 1)..<(was.key.upperBound + 1)))
                fuzzCheck(sameKey, "member \(k) (original \(origin)) lost its key's bytes \(context)", input: input)
                if !entry.replaced {
                    fuzzCheck(
                        checkedSlice(o, now.span).elementsEqual(checkedSlice(buf, was.span)),
                        "kept member \(origin) changed its bytes \(context)", input: input)
                }
            }
        }
    }
}
