// The `jsoncore` fuzz target: every JSONCore reader on one input, checked against each other, a
// model of the editor, and Foundation. See docs/fuzzing.md.
import JSONCore

/// libFuzzer's entry point: called once per input, always from the same thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func jsonCoreFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    JSONCoreFuzz.run(fuzzInput(data, size))
    return 0
}

/// One fuzz input through every check.
enum JSONCoreFuzz {
    static func run(_ input: [UInt8]) {
        var rng = FuzzRandom(seededBy: input)
        // Exactly `input.count` bytes, so AddressSanitizer catches any read past the end.
        withExactCopy(of: input) { buf in
            if let document = DocumentChecks.check(buf, input: input), let layout = document.layout,
                case .object(let object) = document.value
            {
                var budget = NestedChecks.maximumScans
                NestedChecks.check(layout, object, buf, input: input, depth: 0, budget: &budget)
                EditorChecks.check(layout, object, buf, input: input, rng: &rng)
            }
            NestedChecks.checkArbitraryRanges(buf, input: input, rng: &rng)
        }
        FoundationCheck.check(input)
    }
}
