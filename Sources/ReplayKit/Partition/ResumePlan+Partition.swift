extension ResumePlan {
    /// The plan of a shard replaying `set`: its inputs are the partition's, each resuming after
    /// the last line of it the shard's checkpoint settled (lines before are skipped as they are
    /// read), with the lines settled past it not sent again. An entry of another partition of the
    /// same path (another identity) is not continued: the input is replayed from its start.
    package init(partition set: PartitionSet, checkpoint: Checkpoint, fresh: Bool) {
        var inputs: [Input] = []
        var warnings: [String] = []
        for partitioned in set.inputs {
            let source = InputSource(path: partitioned.path, kind: .ndjson)
            var input = Input(
                source: source, path: partitioned.path, resumeAt: nil, resumable: true, bytesBefore: 0, isPlainText: false)
            input.partitionIdentity = partitioned.identity
            if !fresh, let cp = checkpoint.inputs[partitioned.path] {
                if cp.etag == "partition " + partitioned.identity {
                    // A completed input's last own line is its checkpoint line: nothing after it.
                    input.resumeAt = ResumePoint(offset: cp.offset, lineNumber: cp.line + 1)
                    input.rules.settledLines = SettledLines(pairs: cp.settledAfter)
                } else {
                    input.restarted = "its checkpoint is of another partition or file"
                    warnings.append("\(partitioned.path): its checkpoint is of another partition or file: replayed from its start")
                }
            }
            inputs.append(input)
        }
        self.inputs = inputs
        totalBytes = set.segments.reduce(0) { $0 + $1.lines.bytes }
        window = set.window
        self.warnings = warnings
        partition = set
    }
}
