import Foundation

/// Where each input starts, after checking it against the checkpoint.
struct ResumePlan: Sendable {
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
        /// An uncompressed NDJSON file, whose bytes before the checkpoint can be fingerprinted.
        var isPlainText: Bool
    }

    var inputs: [Input]
    var totalBytes: UInt64

    var paths: [String] { inputs.map(\.path) }

    /// Checks every input against `checkpoint`. Fails, before anything is sent, when an input
    /// changed under its checkpoint (a grown file is fine and continues where it stopped).
    init(sources: [InputSource], checkpoint: Checkpoint, fresh: Bool) throws {
        var inputs: [Input] = []
        var total: UInt64 = 0
        for source in sources {
            let isStdin = source.path == "-"
            let path = isStdin ? "-" : URL(fileURLWithPath: source.path).standardizedFileURL.path
            var resume: ResumePoint?
            let plain = !isStdin && source.kind == .ndjson && !Self.isGzip(path)
            if !isStdin, !fresh, let cp = checkpoint.inputs[path], cp.offset > 0 || cp.line > 0 {
                if let why = cp.fingerprint.mismatch(path: path, offset: cp.offset) {
                    throw UsageError(
                        "\(path) changed under its checkpoint: \(why). Replay it with --fresh, or use another --state-dir.")
                }
                resume = ResumePoint(offset: cp.offset, lineNumber: cp.line + 1)
                // The last line read had no newline yet and the file grew since: it may have been
                // cut mid-write, so it is read again, whole, under the same line number.
                if plain, cp.line > 0, let start = Self.startOfUnterminatedLine(path: path, endingAt: cp.offset) {
                    resume = ResumePoint(offset: start, lineNumber: cp.line)
                }
            }
            let size = isStdin ? 0 : ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0)
            inputs.append(
                Input(source: source, path: path, resumeAt: resume, resumable: !isStdin, bytesBefore: total, isPlainText: plain))
            total += size ?? 0
        }
        self.inputs = inputs
        self.totalBytes = total
    }

    /// When the byte before `offset` is not a newline and the file now extends past `offset`,
    /// the offset where that unterminated line starts (just after the previous newline, or 0).
    static func startOfUnterminatedLine(path: String, endingAt offset: UInt64) -> UInt64? {
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

    /// Whether the file starts with the gzip magic bytes.
    static func isGzip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 2)) == Data([0x1F, 0x8B])
    }
}
