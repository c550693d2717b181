import Foundation
import SystemIO

/// The acknowledgment log: every line the destination acknowledged (or that was dead-lettered
/// after it was sent) is appended to it as the answer arrives, so that after `kill -9` a re-run
/// sends again only what was in flight.
///
/// The checkpoint moves about once a second; the log fills the gap after it. It lives in
/// `<state_dir>/acks/` as numbered generation files. Each record is one `write(2)`, which the
/// page cache keeps when the process is killed (no sync needed for that). A checkpoint starts a
/// new generation at the moment it takes its snapshot of the settled lines, and once the
/// checkpoint is committed the older generations are removed: what they held is in it. The next
/// run folds whatever generations are left into the checkpoint before it sends anything
/// (``AckLogFolding``). The format is ``AckLogFormat``'s.
///
/// Not thread-safe: ``RunState`` keeps it behind its counters' lock, where lines settle.
package final class AckLog {
    /// One input of the run, as the log declares it.
    package struct Input {
        /// The checkpoint key: the absolute path or `s3://bucket/key`.
        package var path: String
        /// For an S3 object: its identity (ETag and size).
        var object: S3InputObject?
        /// Whether the run keeps a checkpoint for it (stdin is never resumed, so never logged).
        var resumable: Bool
        /// For a snapshot: its events are also logged by messageId (a rewritten snapshot is
        /// matched by messageId, not by position).
        package var isSnapshot: Bool
        /// For an input of a partition: its checkpoint entry at its start, made from the
        /// partition's manifest (the file itself may not be on this machine).
        var partitionIdentity: InputCheckpoint? = nil

        /// An input at `path` (`object` for an S3 object; `partitionIdentity` for a partition's).
        package init(
            path: String, object: S3InputObject? = nil, resumable: Bool, isSnapshot: Bool,
            partitionIdentity: InputCheckpoint? = nil
        ) {
            self.path = path
            self.object = object
            self.resumable = resumable
            self.isSnapshot = isSnapshot
            self.partitionIdentity = partitionIdentity
        }
    }

    /// The log's directory, `<state_dir>/acks`.
    let directory: String
    private let inputs: [Input]
    /// Each input's declaration record's JSON, made at its first acknowledgment (nil: not yet,
    /// or it cannot be made and the input is not logged).
    private var declarations: [[UInt8]?]
    /// The generation in which each input was last declared.
    private var declaredIn: [UInt64]
    /// Inputs whose declaration could not be made (the file vanished): not logged.
    private var undeclarable: Set<Int> = []
    /// The generation being written.
    package private(set) var generation: UInt64
    private var file: AppendOnlyFile?
    /// Lines and messageIds acknowledged since the last ``write()``.
    private var stagedLines: [(input: Int, line: Int)] = []
    private var stagedIds: [(input: Int, id: String)] = []
    private var buffer: [UInt8] = []
    /// Bytes written to the log by this run.
    package private(set) var bytesWritten: UInt64 = 0
    /// Lines written to the log by this run.
    private(set) var linesWritten = 0
    /// Why the log stopped being written, if it did (the run goes on: without the log a crash
    /// only sends more again).
    private(set) var failure: String?

    /// A log in `directory` for a run over `inputs`. Nothing is created until the first record;
    /// its generation is one past the highest already there.
    package init(directory: String, inputs: [Input]) {
        self.directory = directory
        self.inputs = inputs
        declarations = Array(repeating: nil, count: inputs.count)
        declaredIn = Array(repeating: 0, count: inputs.count)
        generation = (AckLogFiles.generations(in: directory).last ?? 0) + 1
    }

    /// Notes that line `line` of input `input` was settled by the destination's answer.
    package func stage(input: Int, line: Int) {
        guard inputs[input].resumable else { return }
        stagedLines.append((input, line))
    }

    /// Notes that the snapshot event `id` of input `input` was settled.
    package func stage(input: Int, messageId id: String) {
        guard inputs[input].resumable, inputs[input].isSnapshot else { return }
        stagedIds.append((input, id))
    }

    /// Forgets what was staged (it cannot be logged safely).
    func discardStaged() {
        stagedLines.removeAll(keepingCapacity: true)
        stagedIds.removeAll(keepingCapacity: true)
    }

    /// Appends what was staged as one write. A failure is kept (``failure``) and ends logging.
    package func write() {
        guard !stagedLines.isEmpty || !stagedIds.isEmpty else { return }
        defer {
            stagedLines.removeAll(keepingCapacity: true)
            stagedIds.removeAll(keepingCapacity: true)
        }
        guard failure == nil else { return }
        buffer.removeAll(keepingCapacity: true)
        encodeStaged()
        guard !buffer.isEmpty else { return }
        do {
            if file == nil {
                file = try AppendOnlyFile(path: AckLogFiles.path(directory: directory, generation: generation), createDirectory: true)
            }
            try file?.append(buffer)
            bytesWritten += UInt64(buffer.count)
        } catch {
            failure = "cannot write the acknowledgment log in \(directory): \(error) (a crash may send more again)"
        }
    }

    /// Starts the next generation: called when a checkpoint takes its snapshot of the settled
    /// lines. Returns the files the checkpoint covers, to remove once it is committed.
    package func rotate() -> [String] {
        try? file?.close()
        file = nil
        let covered = AckLogFiles.generations(in: directory).filter { $0 <= generation }.map {
            AckLogFiles.path(directory: directory, generation: $0)
        }
        generation += 1
        return covered
    }

    /// Encodes the staged lines and ids into ``buffer``, declaring each input first in this
    /// generation.
    private func encodeStaged() {
        if stagedLines.count > 1, !isSorted(stagedLines) {
            stagedLines.sort { ($0.input, $0.line) < ($1.input, $1.line) }
        }
        var start = 0
        while start < stagedLines.count {
            let input = stagedLines[start].input
            var end = start + 1
            while end < stagedLines.count, stagedLines[end].input == input { end += 1 }
            if declare(input) {
                AckLogFormat.appendLines(input: input, lines: stagedLines[start..<end].lazy.map(\.line), to: &buffer)
                linesWritten += end - start
            }
            start = end
        }
        for (input, id) in stagedIds where declare(input) {
            AckLogFormat.appendMessageId(input: input, id: id, to: &buffer)
        }
    }

    private func isSorted(_ lines: [(input: Int, line: Int)]) -> Bool {
        for i in 1..<lines.count where (lines[i - 1].input, lines[i - 1].line) >= (lines[i].input, lines[i].line) {
            return false
        }
        return true
    }

    /// Writes input `input`'s declaration into ``buffer`` unless this generation has it; false
    /// when the input cannot be declared (then it is not logged).
    private func declare(_ input: Int) -> Bool {
        if declaredIn[input] == generation { return true }
        if undeclarable.contains(input) { return false }
        if declarations[input] == nil {
            guard let json = AckLogFormat.declaration(of: inputs[input]) else {
                undeclarable.insert(input)
                return false
            }
            declarations[input] = json
        }
        AckLogFormat.appendDeclaration(input: input, json: declarations[input]!, to: &buffer)
        declaredIn[input] = generation
        return true
    }
}

/// The generation files of an acknowledgment log directory.
package enum AckLogFiles {
    /// The file of `generation` in `directory`.
    package static func path(directory: String, generation: UInt64) -> String {
        let digits = String(generation)
        return directory + "/" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".log"
    }

    /// The generations present in `directory`, in order (none when it does not exist).
    package static func generations(in directory: String) -> [UInt64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> UInt64? in
            guard name.hasSuffix(".log") else { return nil }
            return UInt64(name.dropLast(4))
        }.sorted()
    }

    /// Removes `files`; a file that cannot be removed stays (a later run folds it again, which
    /// changes nothing).
    package static func remove(_ files: [String]) {
        for file in files { unlink(file) }
    }
}
