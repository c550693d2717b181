import Foundation
import ObjectStorage
import ReplayConfiguration
import Synchronization

extension InputResolver {
    /// The objects `argument` names, as sources not yet recognized (kind `ndjson`), each named
    /// by its key after the prefix it was listed under.
    static func list(_ argument: String, store: S3InputStore, into resolved: inout Resolved) async throws -> [InputSource] {
        let location = try location(argument)
        let listed: [S3Object]
        do {
            listed = try await store.client.objects(at: location)
        } catch let error as S3Error {
            throw InputFailure(error)
        }
        if let only = listed.first, listed.count == 1, only.key == location.path, !location.isPrefix {
            // A key: named like a file argument, by its last component.
            let name = only.key.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? only.key
            return [InputSource(object: S3InputObject(only, bucket: location.bucket, store: store), kind: .ndjson, relativeName: name)]
        }
        let base = location.isPrefix ? location.path : location.path + "/"
        guard !listed.isEmpty else {
            if location.isPrefix {
                resolved.warnings.append("\(argument): the prefix holds no objects (the input is empty)")
                return []
            }
            throw InputFailure(
                .missing, "\(argument): no object has this key, and none is under \(argument)/ (bucket \"\(location.bucket)\")")
        }
        var sources: [InputSource] = []
        var markers: [String] = []
        for object in listed {
            let name = String(object.key.dropFirst(base.count))
            let last = name.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
            if object.key.hasSuffix("/") || last.hasPrefix(".") || last.hasPrefix("_") {
                if !object.key.hasSuffix("/") || object.size > 0 { markers.append(object.key) }
                continue
            }
            sources.append(InputSource(object: S3InputObject(object, bucket: location.bucket, store: store), kind: .ndjson, relativeName: name))
        }
        if !markers.isEmpty {
            resolved.warnings.append(
                "\(argument): \(markers.count) object(s) not read: names starting with '.' or '_' and folder placeholders are "
                    + "markers, not events (\(markers.prefix(3).joined(separator: ", "))\(markers.count > 3 ? ", …" : "")); "
                    + "name one by its full key to read it")
        }
        if sources.isEmpty, markers.isEmpty {
            resolved.warnings.append("\(argument): the prefix holds no objects (the input is empty)")
        }
        return sources
    }

    /// Recognizes every source's content (``recognize(_:)-(InputSource)``), up to
    /// ``recognitionWidth`` at once, keeping their order. With `records`, every object is read
    /// as records (``ReplayConfig/InputShaping/readsRecords``).
    static func recognize(_ sources: [InputSource], records: Bool = false) async throws -> [InputSource] {
        guard !sources.isEmpty else { return [] }
        let budget = SmallObjectBudget()
        return try await withThrowingTaskGroup(of: (Int, InputSource).self) { group in
            var out = sources
            var next = 0
            func start() {
                let (index, source) = (next, sources[next])
                group.addTask { (index, try await recognize(source, keepingWhole: budget, records: records)) }
                next += 1
            }
            while next < min(recognitionWidth, sources.count) { start() }
            for try await (index, source) in group {
                out[index] = source
                if next < sources.count { start() }
            }
            return out
        }
    }

    /// One object's content, as files are recognized: gzip by its first bytes; an SDK snapshot by
    /// its name, or for a `.json` object by its content; SimpleAnalytics payloads by content;
    /// else NDJSON. An empty object is NDJSON (reading it warns that it is empty). An object no
    /// larger than its head keeps it, while `budget` allows, so reading it needs no other GET.
    static func recognize(_ source: InputSource, keepingWhole budget: SmallObjectBudget, records: Bool = false) async throws -> InputSource {
        guard var object = source.object, object.size > 0 else { return source }
        do {
            object.head = try await object.store.client.readHead(
                bucket: object.bucket, key: object.key, etag: object.etag, count: headBytes)
        } catch let error as S3Error {
            throw InputFailure(error)
        }
        let head = object.head ?? []
        object.isGzip = head.starts(with: [0x1F, 0x8B])
        object.firstBytes = Array(head.prefix(InputReader.sniffBytes))
        let probing = source.with(object: object)
        let name = object.key.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? object.key
        var kind = InputSource.Kind.ndjson
        if records {
            // A vendor's export or a named shape: records, whatever they look like.
        } else if SnapshotInput.hasSnapshotName(name) {
            kind = .snapshot
        } else if name.hasSuffix(".json"), SnapshotInput.startsLikeSnapshot(head: Array(head.prefix(256))),
            try SnapshotInput.isWholeSnapshot(probing)
        {
            kind = .snapshot
        } else if let found = try SimpleAnalyticsInput.kind(of: probing) {
            kind = found
        }
        if UInt64(head.count) != object.size || !budget.take(head.count) { object.head = nil }
        return InputSource(object: object, kind: kind, relativeName: source.relativeName ?? name)
    }
}

/// How many bytes of small objects (no larger than their head) one resolution keeps in memory,
/// so that reading them needs no second GET: a prefix of many small objects (Segment writes
/// some, warehouse unloads many) is read with one request per object instead of two. Past the
/// budget, objects are read again as large ones are.
final class SmallObjectBudget: Sendable {
    /// The most bytes kept: 32 MiB.
    static let limit = 32 << 20
    private let left = Mutex(limit)

    /// Takes `count` bytes of the budget; false when they are not left.
    func take(_ count: Int) -> Bool {
        left.withLock { left in
            guard left >= count else { return false }
            left -= count
            return true
        }
    }
}
