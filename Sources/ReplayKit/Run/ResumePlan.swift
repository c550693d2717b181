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
            }
            let size = isStdin ? 0 : ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0)
            inputs.append(
                Input(source: source, path: path, resumeAt: resume, resumable: !isStdin, bytesBefore: total, isPlainText: plain))
            total += size ?? 0
        }
        self.inputs = inputs
        self.totalBytes = total
    }

    /// Whether the file starts with the gzip magic bytes.
    static func isGzip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 2)) == Data([0x1F, 0x8B])
    }
}
