import Testing

/// A suite trait that keeps the suites carrying it from running beside one another.
///
/// Swift Testing runs suites in parallel, and `.serialized` only orders a suite's own tests. The
/// suites that run the whole pipeline against a collector, or start the real binary, load the
/// machine enough to slow the timing-sensitive tests next to them, so each such suite runs its
/// tests while it holds one shared gate: they run one suite at a time, still beside the light
/// suites.
package struct HeavySuiteTrait: SuiteTrait, TestScoping {
    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await HeavySuiteGate.shared.acquire()
        do {
            try await function()
        } catch {
            await HeavySuiteGate.shared.release()
            throw error
        }
        await HeavySuiteGate.shared.release()
    }
}

extension Trait where Self == HeavySuiteTrait {
    /// Runs the suite while no other `.heavy` suite runs (see ``HeavySuiteTrait``).
    package static var heavy: Self { HeavySuiteTrait() }
}

/// The gate `.heavy` suites hold while they run: first come, first served.
actor HeavySuiteGate {
    static let shared = HeavySuiteGate()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()  // the gate passes to the next suite, still held
        }
    }
}
