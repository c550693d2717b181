// The `linepreparer` fuzz target: each line of the input through ReplayKit's enricher (the
// replay hot path, `Enricher.process(_:lineNumber:sequence:into:)`), with a small in-memory
// identity store. See docs/fuzzing.md.
import JSONCore

@testable import ReplayKit

/// libFuzzer's entry point: called once per input, always from the same thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func linePreparerFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    LinePreparerFuzz.run(fuzzInput(data, size))
    return 0
}

/// One fuzz input: its lines (split at `\n`, at most ``maximumLines``), in order, through an
/// enricher for each configuration of ``FuzzSetup``, each with an identity store that knows only
/// ``FuzzSetup``'s ids, so that a failure replays from its input alone.
enum LinePreparerFuzz {
    static let maximumLines = 8

    static func run(_ input: [UInt8]) {
        let lines = input.split(separator: UInt8(ascii: "\n"), maxSplits: maximumLines - 1, omittingEmptySubsequences: false)
        for (config, identity) in zip(FuzzSetup.configs, FuzzSetup.stores) {
            FuzzSetup.reset(identity, input: input)
            let enricher = Enricher(config: config, identity: identity, nowMillis: { FuzzSetup.now })
            var out: [UInt8] = []
            for (k, line) in lines.enumerated() {
                // Exactly the line's bytes, so AddressSanitizer catches any read past its end.
                withExactCopy(of: line) { buf in
                    processLine(buf, lineNumber: k + 1, enricher: enricher, into: &out, input: input)
                }
                if k % 2 == 1 {
                    // Moves what the store learned so far to SQLite, as checkpoints do.
                    fuzzCheck((try? identity.commit(throughSequence: UInt64(k + 1))) != nil, "commit failed", input: input)
                }
            }
        }
    }

    /// One line through the hot path, appending to `out` as a run's chunk does.
    static func processLine(
        _ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, enricher: Enricher, into out: inout [UInt8], input: [UInt8]
    ) {
        let before = out
        let result = enricher.process(line, lineNumber: lineNumber, sequence: UInt64(lineNumber), into: &out)
        fuzzCheck(out[..<before.count].elementsEqual(before), "line \(lineNumber) changed earlier output", input: input)
        guard case .event(let event) = result else {
            fuzzCheck(out.count == before.count, "line \(lineNumber): \(result), yet output was appended", input: input)
            var blank = false
            if case .blank = result { blank = true }
            fuzzCheck(
                blank == isBlank(line), "line \(lineNumber): \(result) for a line that is \(blank ? "not " : "")blank",
                input: input)
            return
        }
        let (range, laneKey) = (event.range, event.laneKey)
        fuzzCheck(
            range == before.count..<out.count, "line \(lineNumber): event range \(range), output \(before.count)..<\(out.count)",
            input: input)
        withExactCopy(of: out[range]) { event in
            EventChecks.check(event: event, line: line, laneKey: laneKey, lineNumber: lineNumber, input: input)
        }
    }

    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
}
