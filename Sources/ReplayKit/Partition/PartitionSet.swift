import Digests
import Foundation
import ReplayConfiguration

/// A finished partition as one replaying shard sees it: every worker's manifest, checked to
/// agree with each other and with the run's config, and the shard's parts, checked whole
/// against their checksums, before anything is sent.
package struct PartitionSet: Sendable {
    /// One segment of the shard's stream: its own lines, and what every line of the segment
    /// teaches. Segments come in the partition's input order.
    struct Segment: Sendable {
        var worker: Int
        var index: Int
        var lines: PartitionManifest.Part
        var transitions: PartitionManifest.Part
    }

    let store: any PartitionStore
    let shard: Int
    let shards: Int
    let workers: Int
    /// Every input of the partition, by index.
    let inputs: [PartitionManifest.Input]
    /// The inputs each worker read, by worker: a worker's inputs have ended once its segments were read.
    let workerInputs: [[Int]]
    let segments: [Segment]
    package let deviceAnonymousId: String
    let window: TimeWindow?
    /// Lines the shard owns, and lines of all shards.
    package let shardLines: Int
    package let totalLines: Int

    /// Loads the partition at `store` for shard `shard` of `shards`, for a run with `config`.
    /// Throws ``PartitionNotReady`` while workers are missing, and ``UsageError`` (exit 2) for a
    /// partition that cannot be replayed: manifests that disagree or were made with another
    /// config, a missing, cut or changed part.
    package init(store: any PartitionStore, shard: Int, shards: Int, config: ReplayConfig) throws {
        self.store = store
        self.shard = shard
        self.shards = shards
        let manifests = try Self.manifests(store)
        guard let first = manifests.first else {
            throw PartitionNotReady("\(store.location) holds no partition manifest yet (is the partition stage running?)")
        }
        workers = first.workers
        let missing = (0..<workers).filter { w in !manifests.contains { $0.worker == w } }
        guard missing.isEmpty else {
            throw PartitionNotReady(
                "\(store.location): \(missing.count) of \(workers) partition workers have not finished (no manifest for worker "
                    + missing.prefix(5).map(String.init).joined(separator: ", ") + (missing.count > 5 ? ", ..." : "") + ")")
        }
        try Self.checkAgreement(manifests, location: store.location, shards: shards, config: config)
        var inputs: [PartitionManifest.Input?] = Array(repeating: nil, count: first.inputCount)
        var segments: [Segment] = []
        var (shardLines, totalLines) = (0, 0)
        for m in manifests.sorted(by: { $0.worker < $1.worker }) {
            for input in m.inputs where input.index < inputs.count { inputs[input.index] = input }
            for s in m.segments {
                guard s.parts.count == shards else { throw Self.damaged(store, m, "segment \(s.index) has \(s.parts.count) parts") }
                segments.append(Segment(worker: m.worker, index: s.index, lines: s.parts[shard], transitions: s.transitions))
                shardLines += s.parts[shard].records
                totalLines += s.parts.reduce(0) { $0 + $1.records }
            }
        }
        let absent = inputs.indices.filter { inputs[$0] == nil }
        guard absent.isEmpty else {
            throw UsageError("\(store.location): no worker's manifest lists input \(absent[0]) of \(inputs.count); partition it again")
        }
        self.inputs = inputs.map { $0! }
        workerInputs = manifests.sorted { $0.worker < $1.worker }.map { $0.inputs.map(\.index) }
        self.segments = segments
        self.shardLines = shardLines
        self.totalLines = totalLines
        deviceAnonymousId = first.deviceAnonymousId
        window =
            first.windowSinceMillis == nil && first.windowUntilMillis == nil
            ? nil : try TimeWindow(sinceMillis: first.windowSinceMillis, untilMillis: first.windowUntilMillis)
    }

    /// Every manifest under `manifests/`.
    static func manifests(_ store: any PartitionStore) throws -> [PartitionManifest] {
        try store.list(PartitionLayout.manifests).filter { $0.hasSuffix(".json") }.map { name in
            guard let bytes = try store.get(name), let m = try? JSONDecoder().decode(PartitionManifest.self, from: Data(bytes)) else {
                throw UsageError("\(store.location)/\(name): not a readable partition manifest")
            }
            return m
        }
    }

    /// Checks that the manifests are one partition's, into `shards` shards, made with settings
    /// the run's `config` has too.
    static func checkAgreement(_ manifests: [PartitionManifest], location: String, shards: Int, config: ReplayConfig) throws {
        let first = manifests[0]
        let settings = PartitionSettings(config: config, shards: first.shards).fingerprint
        for m in manifests {
            let name = "\(location)/\(PartitionLayout.manifest(worker: m.worker, of: m.workers))"
            guard m.format == 1 else { throw UsageError("\(name): a partition of format \(m.format), which this mr-replay does not read") }
            guard m.workers == first.workers, m.shards == first.shards, m.inputsFingerprint == first.inputsFingerprint,
                m.deviceAnonymousId == first.deviceAnonymousId, m.windowSinceMillis == first.windowSinceMillis,
                m.windowUntilMillis == first.windowUntilMillis, m.settings == first.settings
            else {
                throw UsageError(
                    "\(name) disagrees with worker \(first.worker)'s manifest (another partition's, or made from inputs that "
                        + "changed between its workers): partition again into an empty location")
            }
            guard m.settings == settings else {
                throw UsageError(
                    "\(name) was made with another config (enrichment.identity, privacy.require_consent, batching.max_event_bytes "
                        + "or inputs.max_event_age differ): replay it with the config it was partitioned with, or partition again")
            }
        }
        guard first.shards == shards else {
            throw UsageError("\(location) is partitioned into \(first.shards) shards, not \(shards): use --shard K/\(first.shards)")
        }
    }

    static func damaged(_ store: any PartitionStore, _ m: PartitionManifest, _ what: String) -> UsageError {
        UsageError("\(store.location)/\(PartitionLayout.manifest(worker: m.worker, of: m.workers)): \(what)")
    }

    /// Checks that every part the shard reads is there, whole, with its checksum. Reads them all
    /// once: a run sends nothing until this passed.
    func verifyParts() throws {
        var seen = Set<String>()
        for segment in segments {
            for part in [segment.lines, segment.transitions] where seen.insert(part.name).inserted {
                try verify(part)
            }
        }
    }

    private func verify(_ part: PartitionManifest.Part) throws {
        let name = "\(store.location)/\(part.name)"
        guard let size = try store.size(of: part.name) else { throw UsageError("\(name): the part is missing") }
        guard size == part.bytes else {
            throw UsageError("\(name): the part has \(size) bytes, its manifest says \(part.bytes) (cut short or replaced)")
        }
        let stream = try store.open(part.name, size: size)
        let hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            // `buffer` has `count` bytes; the stream writes at most that many.
            let n = try buffer.withUnsafeMutableBufferPointer { try stream.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { break }
            hasher.update(buffer[0..<n])
        }
        guard Digest.hex(hasher.finalize()) == part.sha256 else {
            throw UsageError("\(name): its checksum does not match its manifest's (the part is damaged)")
        }
    }

    /// Checks each input the partition read against what it is now, where it can still be
    /// read: a file's size and modification time. Throws ``UsageError`` for one that changed
    /// since it was partitioned (the partition no longer describes it).
    func checkInputs() throws {
        for input in inputs where !input.path.hasPrefix("s3://") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: input.path) else { continue }
            let size = attributes[.size] as? UInt64 ?? 0
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            guard "size \(size), modified \(modified)" == input.identity else {
                throw UsageError(
                    "\(input.path) changed since it was partitioned (\(input.identity); now size \(size), modified \(modified)): "
                        + "partition again into an empty location")
            }
        }
    }
}

/// The partition is not complete yet: some workers have no manifest.
package struct PartitionNotReady: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
