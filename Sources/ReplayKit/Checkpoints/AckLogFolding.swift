import Foundation

/// What a run found in the acknowledgment log that earlier runs left (they stopped before a
/// checkpoint covered it), once it is folded into the checkpoint.
package struct AckFold: Sendable, Equatable {
    /// The generation files read.
    var files = 0
    /// Lines past their input's checkpoint that are now in it as settled.
    package var lines = 0
    /// Snapshot messageIds recorded as settled.
    package var messageIds = 0
    /// Lines dropped because their file is not the one the log was written for.
    var droppedLines = 0
}

extension StateDirectory {
    /// The acknowledgment log's directory (``AckLog``).
    package var ackDirectory: String { Self.ackDirectory(in: path) }

    /// The acknowledgment log's directory in the state directory `path`.
    package static func ackDirectory(in path: String) -> String { path + "/acks" }

    /// Folds what the acknowledgment log holds into `checkpoint`, before anything is sent: each
    /// acknowledged line after its input's checkpoint becomes one of its settled lines (read and
    /// enriched again, not sent), and each acknowledged snapshot messageId a settled one. The
    /// folded checkpoint is committed (with the messageIds, in one transaction) and only then
    /// are the log's files removed, so a crash at any point leaves the log or the checkpoint
    /// holding them. Returns nil when there is no log.
    package func foldAcknowledgments(into checkpoint: inout Checkpoint, identity: IdentityStore) throws -> AckFold? {
        let generations = AckLogFiles.generations(in: ackDirectory)
        guard !generations.isEmpty else { return nil }
        let files = generations.map { AckLogFiles.path(directory: ackDirectory, generation: $0) }
        var fold = AckFold(files: files.count)
        var acknowledged: [String: AckLogFormat.Acknowledged] = [:]
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file) else { continue }
            for (path, ack) in AckLogFormat.parse([UInt8](bytes)) {
                if var known = acknowledged[path], AckLogFormat.sameInput(known.declaration, ack.declaration) {
                    known.lines += ack.lines
                    known.messageIds += ack.messageIds
                    acknowledged[path] = known
                } else {
                    acknowledged[path] = ack  // a later file's declaration of another file wins
                }
            }
        }
        var next = checkpoint
        for (path, ack) in acknowledged.sorted(by: { $0.key < $1.key }) {
            for id in Set(ack.messageIds) { identity.noteSettledMessageId(id, input: path, sequence: 0) }
            fold.messageIds += Set(ack.messageIds).count
            guard !ack.lines.isEmpty else { continue }
            let lines = SettledLines(sortedLines: ack.lines.sorted())
            switch Self.relation(of: next.inputs[path], to: ack.declaration) {
            case .same(let entry):
                guard !entry.completed, let after = lines?.after(entry.line) else { continue }
                let merged = SettledLines.union(SettledLines(pairs: entry.settledAfter), after)
                fold.lines += (merged?.count ?? 0) - (SettledLines(pairs: entry.settledAfter)?.count ?? 0)
                next.inputs[path]?.settledAfter = merged?.pairs
            case .replace:
                var entry = ack.declaration
                entry.settledAfter = lines?.pairs
                next.inputs[path] = entry
                fold.lines += lines?.count ?? 0
            case .drop:
                fold.droppedLines += lines?.count ?? 0
            }
        }
        try identity.commit(throughSequence: 0, metadata: [Self.checkpointKey: try Self.encode(next)])
        checkpoint = next
        try? writeMirror(checkpoint)
        AckLogFiles.remove(files)
        return fold
    }

    /// How a log's declaration of an input stands to the checkpoint's entry for the same path.
    enum AckRelation {
        /// The same file or object: the lines after the entry's are added to it.
        case same(InputCheckpoint)
        /// No entry, or the entry is of what the path held before the log was written: the
        /// declaration, with the lines, replaces it.
        case replace
        /// The log was written for what the path no longer holds: its lines are dropped (the
        /// input is read again as its checkpoint says, which sends them again at worst).
        case drop
    }

    /// See ``AckRelation``. Fingerprints of the same head length are compared directly (the log
    /// is newer than the checkpoint); otherwise (a small file that grew) both are checked
    /// against the file as it is now.
    static func relation(of entry: InputCheckpoint?, to declaration: InputCheckpoint) -> AckRelation {
        guard let entry else { return .replace }
        if entry.isObject || declaration.isObject {
            return entry.etag == declaration.etag && entry.etag != nil ? .same(entry) : .replace
        }
        let declarationHolds = declaration.fingerprint.mismatch(path: declaration.path, offset: 0) == nil
        if entry.fingerprint.headLength == declaration.fingerprint.headLength {
            if entry.fingerprint.headHash == declaration.fingerprint.headHash { return .same(entry) }
            return declarationHolds ? .replace : .drop
        }
        guard declarationHolds else { return .drop }
        return entry.fingerprint.mismatch(path: entry.path, offset: entry.offset) == nil ? .same(entry) : .replace
    }
}
