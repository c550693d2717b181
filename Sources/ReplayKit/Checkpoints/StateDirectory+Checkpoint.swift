import Foundation
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import SystemIO
import Timestamps

/// The checkpoint of a state directory: stored in `identity.sqlite` with the identities it
/// passes, and mirrored in `checkpoint.json`.
extension StateDirectory {
    static let checkpointKey = "checkpoint"

    /// Loads the checkpoint stored with the identity state.
    package func loadCheckpoint(identity: IdentityStore) throws -> Checkpoint {
        guard let text = try identity.metadata(StateDirectory.checkpointKey) else { return Checkpoint() }
        do {
            return try JSONDecoder().decode(Checkpoint.self, from: Data(text.utf8))
        } catch {
            throw UsageError("the checkpoint in \(path) is unreadable (\(error)); use --fresh to start over")
        }
    }

    /// Forgets the checkpoint, the destination it belonged to and the learned identities (the
    /// device anonymousId stays), so a fresh run enriches exactly like a first run.
    func clearCheckpoint(identity: IdentityStore) throws {
        try identity.forgetLearnedIdentities()
        try identity.commit(
            throughSequence: nil, metadata: [StateDirectory.checkpointKey: nil, CheckpointDestination.metadataKey: nil])
        try? LocalFileSystem().remove(checkpointMirrorPath)
        AckLogFiles.remove(AckLogFiles.generations(in: ackDirectory).map { AckLogFiles.path(directory: ackDirectory, generation: $0) })
    }

    /// Moves the checkpoint to the current low-watermark and commits, in the same SQLite
    /// transaction, the identities learned from the lines before it. Crash-safe: either both
    /// move or neither does; `checkpoint` is only updated once the commit succeeded.
    ///
    /// An input that can no longer be read cannot be fingerprinted. When none of its lines
    /// settled since its entry (it was never readable this run: its `read_error` is
    /// dead-lettered), it keeps its entry and the other inputs move on. When some did, the save
    /// fails and nothing moves: committing the identities learned from those lines while the
    /// input's entry stayed behind would change how they enrich when read again.
    package func saveCheckpoint(_ checkpoint: inout Checkpoint, plan: ResumePlan, runState: RunState, identity: IdentityStore) throws {
        // Every line the snapshot passes or lists that was dead-lettered is in the dead-letter
        // file by the time it returns (``RunState/checkpointSnapshot()``).
        let snapshot = try runState.checkpointSnapshot()
        let (watermark, positions, ended, lastSeq) = (snapshot.watermark, snapshot.positions, snapshot.ended, snapshot.lastSequence)
        var next = checkpoint
        for (index, input) in plan.inputs.enumerated() where input.resumable {
            let entry = next.inputs[input.path]
            let position = positions[index]
            let offset = position?.offset ?? input.resumeAt?.offset ?? 0
            let line = position?.lineNumber ?? ((input.resumeAt?.lineNumber ?? 1) - 1)
            let completed = ended.contains(index) && (lastSeq[index].map { $0 < watermark } ?? true)
            // The lines settled past the position: this run's, and those an earlier run settled
            // that this run has not read again yet.
            let settledAfter =
                completed ? nil : SettledLines.union(snapshot.pastWatermark[index], input.rules.settledLines?.after(line))?.pairs
            let identity = input.partitionIdentity.map { "partition " + $0 } ?? input.source.object?.etag
            if entry?.offset == offset, entry?.completed == completed, entry?.etag == identity {
                next.inputs[input.path]?.settledAfter = settledAfter
                continue
            }
            if let partitioned = input.partitionIdentity {
                next.inputs[input.path] = InputCheckpoint(
                    partitioned: input.path, identity: partitioned, offset: offset, line: line, completed: completed)
                next.inputs[input.path]?.settledAfter = settledAfter
                continue
            }
            if let object = input.source.object {
                next.inputs[input.path] = InputCheckpoint(object: object, offset: offset, line: line, completed: completed)
                next.inputs[input.path]?.settledAfter = settledAfter
                continue
            }
            let fingerprint: FileFingerprint
            do {
                fingerprint = try FileFingerprint.make(path: input.path, offset: offset, plain: input.isPlainText)
            } catch {
                if offset == entry?.offset ?? 0, line == entry?.line ?? 0 { continue }
                throw InputError("\(input.path): cannot be read to fingerprint its checkpoint (\(error.localizedDescription))")
            }
            next.inputs[input.path] = InputCheckpoint(
                path: input.path, offset: offset, line: line, completed: completed, fingerprint: fingerprint)
            next.inputs[input.path]?.settledAfter = settledAfter
        }
        next.updatedAt = Timestamp.iso8601(Date())
        var metadata: [String: String?] = [StateDirectory.checkpointKey: try Self.encode(next)]
        if snapshot.delivered > 0, let destination { metadata[CheckpointDestination.metadataKey] = destination }
        try identity.commit(throughSequence: watermark == 0 ? nil : watermark - 1, metadata: metadata)
        checkpoint = next
        AckLogFiles.remove(snapshot.coveredAckFiles)
        try? writeMirror(checkpoint)
    }

    /// The checkpoint as it is stored.
    static func encode(_ checkpoint: Checkpoint) throws -> String {
        String(decoding: try JSONEncoder().encode(checkpoint), as: UTF8.self)
    }

    package func writeMirror(_ checkpoint: Checkpoint) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try LocalFileSystem().writeAtomically(checkpointMirrorPath, [UInt8](try encoder.encode(checkpoint)) + [0x0A])
    }
}
