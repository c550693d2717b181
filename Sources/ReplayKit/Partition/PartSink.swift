import Digests
import Foundation
import SystemIO
import ZstdCodec

/// One part being written by a partition worker: records are gathered uncompressed, compressed
/// into one zstd frame in pieces, and written to a temporary file, hashed as they go. Closing it
/// gives the part's manifest entry; the worker then publishes the file under ``name``.
final class PartSink {
    /// The part's name in the partition (``PartitionLayout``).
    let name: String
    /// The temporary file.
    let file: String
    private let output: AppendOnlyFile
    private let zstd: ZstdWriter
    private let hasher = SHA256Hasher()
    /// Records not yet compressed.
    var records: [UInt8] = []
    private var compressed: [UInt8] = []
    /// Records of lines or transitions written.
    var count = 0
    /// The input the last records were of (an `I` record starts each input).
    private var currentInput = -1
    /// Uncompressed bytes gathered before they are compressed.
    static let pieceBytes = 128 * 1024
    /// The compression level: zstd's fast levels, which cost about a third of level 1's time
    /// for a quarter more bytes.
    static let level: Int32 = -3

    /// A part that will be `name`, written first to a new file in `directory`.
    init(name: String, directory: String) throws {
        self.name = name
        file = directory + "/" + name.replacingOccurrences(of: "/", with: "_") + ".\(UInt32.random(in: 0...UInt32.max)).tmp"
        do {
            output = try AppendOnlyFile(path: file, start: .empty)
        } catch {
            throw PartitionStoreError("\(error)")
        }
        zstd = try ZstdWriter(level: Self.level)
        records.reserveCapacity(Self.pieceBytes + 64 * 1024)
    }

    /// Starts the records of input `index`, unless they are under way.
    @inline(__always)
    func begin(input index: Int) {
        guard index != currentInput else { return }
        PartitionRecord.appendInput(index, to: &records)
        currentInput = index
    }

    /// Compresses the gathered records once there are enough of them.
    @inline(__always)
    func flushIfFull() throws {
        if records.count >= Self.pieceBytes { try compressRecords() }
    }

    /// Compresses and writes what was gathered.
    private func compressRecords() throws {
        compressed.removeAll(keepingCapacity: true)
        try records.withUnsafeBytes { try zstd.write($0, into: &compressed) }
        records.removeAll(keepingCapacity: true)
        try writeCompressed()
    }

    private func writeCompressed() throws {
        guard !compressed.isEmpty else { return }
        hasher.update(compressed)
        try output.append(compressed)
    }

    /// Ends the part's frame and returns its entry; the file is complete (not yet synced).
    func finish() throws -> PartitionManifest.Part {
        try compressRecords()
        compressed.removeAll(keepingCapacity: true)
        try zstd.finishFrame(into: &compressed)
        try writeCompressed()
        return PartitionManifest.Part(
            name: name, bytes: output.size, sha256: Digest.hex(hasher.finalize()), records: count)
    }

    /// Removes the temporary file (a part given up).
    func discard() {
        try? FileManager.default.removeItem(atPath: file)
    }
}
