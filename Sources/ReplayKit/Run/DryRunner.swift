import Foundation
import ReplayConfiguration
import SystemIO

/// `mr-replay run --dry-run`: everything except the network.
///
/// Enriched events are written as NDJSON, in send order; bad lines go to
/// `<state_dir>/dry-run-dead-letter.ndjson` (rewritten by each dry run, so the real run's
/// dead-letter file only ever holds what real runs did not deliver). Enrichment sees the state's
/// identities and device anonymousId, exactly as a real run would, but what the dry run learns
/// goes to a scratch copy (`<state_dir>/.dry-run-<uuid>/`, as large as `identity.sqlite`) that is
/// deleted at the end: a dry run never changes what a later real run sends.
public enum DryRunner {
    /// Where a dry run writes its dead letters.
    public static func deadLetterPath(stateDirectory: String) -> String {
        stateDirectory + "/dry-run-dead-letter.ndjson"
    }

    /// Replays `inputs` into the file descriptor `outputFD` (e.g. 1 for stdout), which the caller
    /// opened and closes; see ``run(config:inputs:output:window:limit:nowMillis:onWarning:onSummary:)``.
    public static func run(
        config: ReplayConfig, inputs: [InputSource], outputFD: Int32, window: TimeWindow? = nil, limit: Int? = nil,
        nowMillis: (() -> Int64)? = nil, onWarning: (String) -> Void = { _ in }, onSummary: ((TrialSummary) -> Void)? = nil
    ) throws -> EnrichStats {
        try run(
            config: config, inputs: inputs, output: AppendOnlyFile(descriptor: outputFD, name: "file descriptor \(outputFD)"),
            window: window, limit: limit, nowMillis: nowMillis, onWarning: onWarning, onSummary: onSummary)
    }

    /// Replays `inputs` into `output`, whose name its write errors give. Returns the counters.
    /// `window` and `limit` are a run's `--since`/`--until` and `--limit`: events outside the
    /// window are counted (`outside_window`) and not written; the walk stops after `limit` events.
    /// `onWarning` hears what a person should know about an input (empty, damaged, purged).
    /// Throws a ``UsageError`` before writing anything for a snapshot that cannot be replayed.
    /// With `onSummary`, the run also counts what it would send (``TrialSummary``) and hands it
    /// over at the end.
    package static func run(
        config: ReplayConfig, inputs: [InputSource], output: AppendOnlyFile, window: TimeWindow? = nil, limit: Int? = nil,
        nowMillis: (() -> Int64)? = nil, onWarning: (String) -> Void = { _ in }, onSummary: ((TrialSummary) -> Void)? = nil
    ) throws -> EnrichStats {
        let nowMillis = nowMillis ?? Enricher.systemMillis
        let rules: [InputRules]
        do {
            rules = try InputRules.plan(inputs, config: config, runStartMillis: nowMillis())
        } catch let error as UnsupportedSnapshot {
            throw UsageError("\(error)")
        }
        rules.enumerated().forEach { $0.element.warnings(for: inputs[$0.offset]).forEach(onWarning) }
        // Next to the state (same file system; a leftover after `kill -9` is easy to find).
        let scratch = config.stateDir + "/.dry-run-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            let device = try DeviceIdentity.shared(root: config.stateDir)  // creates the device id once
            let state = try IdentityStore(stateDirectory: config.stateDir, deviceAnonymousId: device)
            defer { state.close() }
            try state.copy(toDirectory: scratch)
        }
        let identity = try IdentityStore(stateDirectory: scratch, scratch: true)
        defer { identity.close() }
        let deadLetterPath = deadLetterPath(stateDirectory: config.stateDir)
        try? FileManager.default.removeItem(atPath: deadLetterPath)
        let deadLetters = try DeadLetterWriter(path: deadLetterPath)
        let enricher = Enricher(config: config, identity: identity, nowMillis: nowMillis)
        enricher.preparer.setWindow(window)
        var allowance = limit ?? Int.max
        var summary = onSummary.map { _ in TrialSummary() }
        // Events are rendered straight into the output buffer; each is followed by a newline.
        let out = FDWriter(file: output)
        try LineWalker.walkRendered(
            inputs: inputs, config: config, enricher: enricher, output: out.buffer, rules: rules, onWarning: onWarning
        ) { item in
            // Nothing is in flight in a dry run: learned identities are committed (to the scratch
            // copy) when the store's memory would otherwise grow past its bound, which depends
            // on the ids held, not on lines read (see `isScratchCommitDue`).
            if identity.isScratchCommitDue { try identity.commit(throughSequence: item.sequence) }
            summary?.count(item, enricher: enricher, output: out.buffer)
            switch item.result {
            case .event:
                try out.endLine()
                allowance -= 1
            case .blank, .skipped: break
            case .deadLetter(let reason, let detail):
                try deadLetters.write(
                    reason: reason, detail: detail, source: inputs[item.inputIndex].path, line: item.line.lineNumber,
                    raw: item.line.bytes)
            }
            return allowance > 0 || !item.line.endsLine  // a record's events go together
        }
        try out.flush()
        try deadLetters.close()
        if var summary, let onSummary {
            summary.finish(enricher, config: config)
            onSummary(summary)
        }
        // What is still pending is not committed: the scratch copy is deleted on return.
        return enricher.stats
    }
}

/// Buffered writes to a file: whatever is appended to ``buffer`` is written out in blocks of
/// about 128 KiB.
final class FDWriter {
    /// The file written to, which the caller opened and closes.
    let file: AppendOnlyFile
    /// The bytes not yet written (callers append to it, or render into it).
    let buffer = EventBuffer(capacity: FDWriter.blockSize + 64 * 1024)
    /// Small enough that the block being rendered stays in the core's L2 cache with the read
    /// buffer (1 MiB blocks made rendering miss it); large enough that a write call per block
    /// costs nothing measurable.
    static let blockSize = 128 * 1024

    init(file: AppendOnlyFile) { self.file = file }

    /// Ends the line appended to ``buffer``.
    func endLine() throws {
        buffer.bytes.append(0x0A)
        if buffer.bytes.count >= Self.blockSize { try flush() }
    }

    /// Writes out every byte of ``buffer`` and empties it.
    func flush() throws {
        do {
            try file.append(buffer.bytes)
        } catch {
            throw InputError("the dry run's output: \(error)")
        }
        buffer.bytes.removeAll(keepingCapacity: true)
    }
}
