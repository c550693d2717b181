import JSONCore

/// `ObjectLayout.scanNested`, both forms, and `skimNested`: on the nested objects of a valid document (each from an
/// exactly-sized copy that ends where the object ends, so a read past it is an over-read that
/// AddressSanitizer reports), and the validating form on arbitrary ranges.
enum NestedChecks {
    /// Nested scans per input, to bound the work on wide or deep documents.
    static let maximumScans = 48
    /// How deep nested objects are followed.
    static let maximumDepth = 6

    /// Scratch storage for the reusing form, kept from scan to scan. The fuzzer calls its entry
    /// point from one thread only, so no two calls use it at once.
    nonisolated(unsafe) static var scratch = ObjectLayout()

    /// Scans each object-valued member of `layout` (of `buf`) on its own and compares the result
    /// with the parsed `object`, then does the same one level down.
    static func check(
        _ layout: ObjectLayout, _ object: JSONObject, _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8], depth: Int,
        budget: inout Int
    ) {
        for (i, m) in layout.members.enumerated() where m.kind == .object {
            guard budget > 0 else { return }
            budget -= 1
            guard case .object(let nestedObject) = object.members[i].value else {
                fuzzFailure("member \(i) is an object in the layout only", input: input)
            }
            // The bytes up to the end of the nested object, and not one more.
            withExactCopy(of: checkedSlice(buf, 0..<m.value.upperBound)) { prefix in
                guard let nested = ObjectLayout.scanNested(prefix, m.value) else {
                    fuzzFailure("scanNested rejects member \(i)'s object at \(m.value)", input: input)
                }
                fuzzCheck(nested.range == m.value, "scanNested range \(nested.range) != \(m.value)", input: input)
                LayoutChecks.matches(nested, nestedObject, prefix, input: input)
                let ok = ObjectLayout.scanNested(prefix, m.value, reusing: &scratch)
                fuzzCheck(
                    ok && scratch.members == nested.members && scratch.range == nested.range,
                    "the reusing scanNested differs for member \(i)", input: input)
                let skimmed = ObjectLayout.skimNested(prefix, m.value, reusing: &scratch)
                fuzzCheck(
                    skimmed && scratch.members == nested.members && scratch.range == nested.range,
                    "skimNested differs from scanNested for member \(i)", input: input)
                if depth + 1 < maximumDepth {
                    check(nested, nestedObject, prefix, input: input, depth: depth + 1, budget: &budget)
                }
            }
        }
    }

    /// The validating `scanNested(_:_:reusing:)` on a few ranges that start at a `{` anywhere in
    /// the input and end anywhere after it, each from an exactly-sized copy that ends where the
    /// range ends. It must accept a range that holds an object (trailing bytes allowed), report
    /// exactly that object, and leave nothing behind when it refuses.
    static func checkArbitraryRanges(_ buf: UnsafeBufferPointer<UInt8>, input: [UInt8], rng: inout FuzzRandom) {
        let opens = buf.indices.filter { buf[$0] == UInt8(ascii: "{") }
        guard !opens.isEmpty else { return }
        for _ in 0..<min(3, opens.count) {
            let start = rng.pick(opens)
            let end = rng.int(0...3) == 0 ? buf.count : rng.int(start...buf.count)
            withExactCopy(of: checkedSlice(buf, 0..<end)) { prefix in
                checkRange(prefix, start..<end, input: input)
            }
        }
    }

    static func checkRange(_ prefix: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, input: [UInt8]) {
        let ok = ObjectLayout.scanNested(prefix, range, reusing: &scratch)
        let whole = try? JSONParser.parse(checkedSlice(prefix, range))
        guard ok else {
            fuzzCheck(scratch.members.isEmpty && scratch.range == 0..<0, "a refused scanNested left members", input: input)
            fuzzCheck(whole?.objectValue == nil, "scanNested refuses the object at \(range)", input: input)
            return
        }
        let found = scratch.range
        fuzzCheck(
            found.lowerBound == range.lowerBound && found.upperBound <= range.upperBound,
            "scanNested found \(found) in \(range)", input: input)
        guard case .object(let object)? = try? JSONParser.parse(checkedSlice(prefix, found)) else {
            fuzzFailure("scanNested accepts \(found), which is not an object", input: input)
        }
        let layout = scratch
        LayoutChecks.matches(layout, object, prefix, input: input)
    }
}
