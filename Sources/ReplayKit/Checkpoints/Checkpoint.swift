import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// Where each input of a state directory stands: everything before `offset` is settled
/// (delivered, dead-lettered, filtered or blank).
package struct Checkpoint: Codable, Sendable, Equatable {
    /// The format version.
    package var version = 1
    /// Inputs by absolute path, or `s3://bucket/key` for an S3 object.
    package var inputs: [String: InputCheckpoint] = [:]
    /// When it was last written (ISO 8601).
    package var updatedAt: String = ""
    /// The time window (`--since`/`--until`) the positions hold for; nil when the runs had none.
    package var window: TimeWindow?

    /// Whether any input has a position (a run read past its start).
    package var hasProgress: Bool { inputs.values.contains { $0.offset > 0 || $0.line > 0 } }

    /// Creates an empty checkpoint.
    package init() {}
}

/// The settled position of one input.
package struct InputCheckpoint: Codable, Sendable, Equatable {
    /// The input's absolute path, or `s3://bucket/key` for an S3 object.
    package var path: String
    /// Byte offset (in the decompressed stream) just after the last settled line.
    package var offset: UInt64
    /// The line number of the last settled line (0 when none).
    package var line: Int
    /// Whether the whole input was read and settled.
    package var completed: Bool
    /// What the file looked like, to refuse a file that changed under its checkpoint.
    package var fingerprint: FileFingerprint
    /// Lines after `line` that are settled too, as `[first, last]` ranges (``SettledLines``):
    /// a resumed run does not send them again. Absent when there are none.
    package var settledAfter: [[Int]]?
    /// For an S3 object: its bucket (absent for a file; CheckpointObjects.swift).
    package var bucket: String?
    /// For an S3 object: its key.
    package var key: String?
    /// For an S3 object: the ETag of the version read.
    package var etag: String?

    /// Creates an input checkpoint.
    package init(path: String, offset: UInt64, line: Int, completed: Bool, fingerprint: FileFingerprint) {
        self.path = path
        self.offset = offset
        self.line = line
        self.completed = completed
        self.fingerprint = fingerprint
    }
}

/// A cheap fingerprint of a file's raw bytes: its size, a hash of its head, and (for plain,
/// uncompressed files) a hash of the bytes just before the checkpoint offset. A file that only
/// grew (lines appended) keeps the same fingerprint for the part already read.
package struct FileFingerprint: Codable, Sendable, Equatable {
    /// The file size when the checkpoint was written.
    package var size: UInt64
    /// How many head bytes `headHash` covers.
    package var headLength: Int
    /// FNV-1a 64 of the first `headLength` bytes, as hex.
    package var headHash: String
    /// FNV-1a 64 of the `windowLength` bytes before the offset, as hex (plain files only).
    package var windowHash: String?
    /// How many bytes `windowHash` covers.
    package var windowLength: Int?

    /// A fingerprint of these parts.
    package init(size: UInt64, headLength: Int, headHash: String, windowHash: String?, windowLength: Int?) {
        self.size = size
        self.headLength = headLength
        self.headHash = headHash
        self.windowHash = windowHash
        self.windowLength = windowLength
    }

    static let headBytes = 65_536
    static let windowBytes = 4_096

    /// Fingerprints the file at `path`, with the window ending at `offset` when `plain`.
    package static func make(path: String, offset: UInt64, plain: Bool) throws -> FileFingerprint {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        let head = try handle.read(upToCount: min(headBytes, Int(size))) ?? Data()
        var fp = FileFingerprint(size: size, headLength: head.count, headHash: FNV1a.hex(head), windowHash: nil, windowLength: nil)
        if plain, offset > 0, offset <= size {
            let length = Int(min(UInt64(windowBytes), offset))
            try handle.seek(toOffset: offset - UInt64(length))
            let window = try handle.read(upToCount: length) ?? Data()
            fp.windowHash = FNV1a.hex(window)
            fp.windowLength = length
        }
        return fp
    }

    /// Why the file at `path` no longer matches this fingerprint taken at `offset`, or `nil` when it
    /// is the same file (possibly grown).
    package func mismatch(path: String, offset: UInt64) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)) else {
            return "it can no longer be opened"
        }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return "its size cannot be read" }
        if size < self.size { return "it is smaller than when it was checkpointed (\(size) < \(self.size) bytes)" }
        try? handle.seek(toOffset: 0)
        let head = (try? handle.read(upToCount: headLength)) ?? Data()
        if head.count != headLength || FNV1a.hex(head) != headHash { return "its first \(headLength) bytes changed" }
        if let windowHash, let windowLength, offset >= UInt64(windowLength) {
            try? handle.seek(toOffset: offset - UInt64(windowLength))
            let window = (try? handle.read(upToCount: windowLength)) ?? Data()
            if FNV1a.hex(window) != windowHash { return "the bytes before the checkpoint (offset \(offset)) changed" }
        }
        return nil
    }
}
