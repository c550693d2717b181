/// The differential against Foundation's `JSONSerialization`, on the input as one line, with the
/// allowances of the tests: this target compiles `Tests/JSONCoreTests/FoundationComparison.swift`,
/// which lists and explains them, so the tests and the fuzzer cannot drift apart.
enum FoundationCheck {
    /// Longer inputs are left out: Foundation is much slower than the rest of the target.
    static let maximumLength = 4_096

    static func check(_ input: [UInt8]) {
        guard input.count <= maximumLength, let outcome = FoundationComparison.compare(input) else { return }
        if let problem = outcome.problems.first {
            fuzzFailure("Foundation differential: \(problem)", input: input)
        }
    }
}
