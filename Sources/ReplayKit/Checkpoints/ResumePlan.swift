import Foundation
import ReplayConfiguration

/// Where each input starts, after checking it against the checkpoint.
package struct ResumePlan: Sendable {
    struct Input: Sendable {
        var source: InputSource
        /// The absolute path (the checkpoint key), or `-` for stdin.
        var path: String
        /// Where reading starts; `nil` = the beginning.
        var resumeAt: ResumePoint?
        /// Whether a checkpoint is kept for it (not for stdin).
        var resumable: Bool
        /// Bytes of earlier inputs, for the ETA.
        var bytesBefore: UInt64
        /// An uncompressed file, whose bytes before the checkpoint can be fingerprinted.
        var isPlainText: Bool
        /// The input's rules: age limit, snapshot purge and already-settled events.
        var rules = InputRules()
        /// How its content is cut into records (`inputs.format`, `inputs.csv`).
        var shaping = ReplayConfig.InputShaping()
        /// Why it is read again from its start, when it changed under its checkpoint.
        var restarted: String?
        /// For an input of a partition (``PartitionSet``): what identifies the content it was
        /// partitioned from; its checkpoint is kept under it, as an object's under its ETag.
        var partitionIdentity: String?
    }

    var inputs: [Input]
    var totalBytes: UInt64
    /// The run's time window: the one asked for, or the one of the checkpoint it continues
    /// (``TimeWindow/resolve(given:stored:checkpointHasProgress:stateDirectory:)``).
    var window: TimeWindow?
    /// What a person should know before anything is read.
    var warnings: [String] = []
    /// With `--shard-by file`: how many of the resolved inputs belong to other shards (not read).
    var inputsOfOtherShards = 0
    /// With `--partitions`: the partition the shard replays.
    var partition: PartitionSet?

    package var paths: [String] { inputs.map(\.path) }

    /// The inputs as the acknowledgment log declares them.
    var ackInputs: [AckLog.Input] {
        inputs.map { input in
            AckLog.Input(
                path: input.path, object: input.source.object, resumable: input.resumable, isSnapshot: input.source.kind == .snapshot,
                partitionIdentity: input.partitionIdentity.map { InputCheckpoint(partitioned: input.path, identity: $0) })
        }
    }

    /// Checks every input against `checkpoint` and reads every snapshot once, before anything is
    /// sent. Fails for a snapshot that cannot be replayed, and for an input that changed under
    /// its checkpoint when `inputs.on_changed` is `refuse`. A grown file continues where it
    /// stopped; a changed one is read again from its start (a rotated file whose content moved
    /// to another input continues there); a rewritten snapshot is read again, skipping the events
    /// earlier runs settled.
    package init(
        sources: [InputSource], checkpoint: Checkpoint, fresh: Bool, config: ReplayConfig, identity: IdentityStore?,
        runStartMillis: Int64
    ) throws {
        var inputs: [Input] = []
        var total: UInt64 = 0
        for source in sources {
            let isStdin = source.path == "-"
            let path = isStdin || source.isObject ? source.path : URL(fileURLWithPath: source.path).standardizedFileURL.path
            var rules: InputRules
            do {
                rules = try InputRules.make(for: source, config: config, runStartMillis: runStartMillis)
            } catch let error as UnsupportedSnapshot {
                throw UsageError(
                    "\(error). Nothing was sent and its checkpoint is unchanged; replay it with an mr-replay that reads its version.")
            }
            // An object is never "plain text" here: it cannot grow, so no window is fingerprinted.
            let plain = !isStdin && !source.isObject && !Self.isCompressed(path)
            let size =
                source.object?.size
                ?? (isStdin ? 0 : ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0))
            var input = Input(
                source: source, path: path, resumeAt: nil, resumable: !isStdin, bytesBefore: total, isPlainText: plain, rules: rules)
            input.shaping = config.inputs.shaping
            if !isStdin, !fresh, let cp = checkpoint.inputs[path], cp.offset > 0 || cp.line > 0 || cp.settledAfter != nil {
                if let why = cp.mismatch(source, path: path) {
                    if config.inputs.onChanged == .refuse {
                        throw UsageError(
                            "\(path) changed under its checkpoint: \(why). Replay it with --fresh, or use another --state-dir "
                                + "(inputs.on_changed is refuse).")
                    }
                    input.restarted = why
                } else {
                    input.resumeAt = Self.resumePoint(cp, input: input, size: size)
                    input.rules.settledLines = SettledLines(pairs: cp.settledAfter)
                }
            }
            inputs.append(input)
            total += size
        }
        self.inputs = inputs
        self.totalBytes = total
        if !fresh { try reconcileChangedInputs(checkpoint: checkpoint, identity: identity) }
        for input in self.inputs {
            warnings += input.rules.warnings(for: input.source)
        }
    }

    /// Where an unchanged (possibly grown) input resumes.
    private static func resumePoint(_ cp: InputCheckpoint, input: Input, size: UInt64) -> ResumePoint {
        var resume = ResumePoint(offset: cp.offset, lineNumber: cp.line + 1)
        if input.source.kind == .snapshot {
            // The bytes after a damaged snapshot's break were dead-lettered; while the file is
            // the same, they are not handed over again. A completed file that grew is the
            // capture replaced by its complete version: reading resumes at the damage.
            resume.damagedTailSettled = cp.completed && size == cp.fingerprint.size
        } else if input.isPlainText, cp.line > 0, Self.isLines(input),
            let start = startOfUnterminatedLine(path: input.path, endingAt: cp.offset)
        {
            // The last line read had no newline yet and the file grew since: it may have been
            // cut mid-write, so it is read again, whole, under the same line number.
            resume = ResumePoint(offset: start, lineNumber: cp.line)
        }
        return resume
    }

    /// Inputs that changed under their checkpoint are read again from the start, with a warning.
    /// An input with no checkpoint of its own whose content is what another path's checkpoint
    /// describes (that path now holds another file, or none: it was rotated) continues from that
    /// checkpoint. A rewritten snapshot skips the events earlier runs settled, by messageId.
    private mutating func reconcileChangedInputs(checkpoint: Checkpoint, identity: IdentityStore?) throws {
        // Objects are not rotated: an S3 object's checkpoint never moves to another input.
        var movedAway = checkpoint.inputs.values.filter { cp in
            guard cp.offset > 0 || cp.line > 0, !cp.isObject else { return false }
            if let k = inputs.firstIndex(where: { $0.path == cp.path }) { return inputs[k].restarted != nil }
            return cp.fingerprint.mismatch(path: cp.path, offset: cp.offset) != nil
        }
        for k in inputs.indices where inputs[k].resumable && inputs[k].source.kind == .ndjson && !inputs[k].source.isObject {
            guard checkpoint.inputs[inputs[k].path] == nil || inputs[k].restarted != nil else { continue }
            let path = inputs[k].path
            guard let m = movedAway.firstIndex(where: { $0.path != path && $0.fingerprint.mismatch(path: path, offset: $0.offset) == nil })
            else { continue }
            let cp = movedAway.remove(at: m)
            inputs[k].resumeAt = Self.resumePoint(cp, input: inputs[k], size: 0)
            inputs[k].rules.settledLines = SettledLines(pairs: cp.settledAfter)
            warnings.append("\(path): holds what \(cp.path) held at its checkpoint (rotated): it continues from line \(cp.line + 1)")
        }
        for k in inputs.indices {
            guard let why = inputs[k].restarted else { continue }
            if inputs[k].source.kind == .snapshot, let identity {
                inputs[k].rules.settledMessageIds = try identity.settledMessageIds(input: inputs[k].path)
                warnings.append(
                    "\(inputs[k].path): the snapshot was rewritten since its checkpoint (\(why)): it is read again, and the "
                        + "\(inputs[k].rules.settledMessageIds!.count) events earlier runs settled are skipped by messageId")
            } else if inputs[k].resumeAt == nil {
                warnings.append(
                    "\(inputs[k].path): changed under its checkpoint (\(why)): it is read again from line 1 as a new file; "
                        + "events that were sent before are sent again with the same messageIds")
            }
        }
    }

    /// When the byte before `offset` is not a newline and the file now extends past `offset`,
    /// the offset where that unterminated line starts (just after the previous newline, or 0).
    package static func startOfUnterminatedLine(path: String, endingAt offset: UInt64) -> UInt64? {
        guard offset > 0, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > offset else { return nil }
        var end = offset  // bytes before `end` are still to be searched
        var first = true
        while end > 0 {
            let length = min(UInt64(64 * 1024), end)
            guard (try? handle.seek(toOffset: end - length)) != nil,
                let chunk = try? handle.read(upToCount: Int(length)), chunk.count == Int(length)
            else { return nil }
            if first {
                if chunk.last == 0x0A { return nil }  // the line was complete
                first = false
            }
            if let nl = chunk.lastIndex(of: 0x0A) {
                return end - length + UInt64(nl - chunk.startIndex) + 1
            }
            end -= length
        }
        return 0
    }

    /// Whether the file starts with a compression's magic bytes (gzip, zstd or zip): its
    /// offsets are then in its decompressed content, and no window of its bytes is fingerprinted.
    static func isCompressed(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return Compression([UInt8]((try? handle.read(upToCount: 4)) ?? Data())) != nil
    }

    /// Whether a plain input is read as lines (its last line may have been cut mid-write), not
    /// as a JSON array or CSV, whose records have their own ends.
    static func isLines(_ input: Input) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: input.path) else { return true }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: InputReader.sniffBytes)) ?? Data())
        guard let reader = try? InputReader(source: input.source, shaping: input.shaping) else { return true }
        return reader.shape(plainHead: head) == .lines
    }
}
