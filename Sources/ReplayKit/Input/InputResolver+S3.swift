import Foundation
import ObjectStorage
import ReplayConfiguration

/// `s3://` arguments: listed, filtered and recognized like files.
///
/// - `s3://bucket/prefix/` (or `s3://bucket`) is a prefix: every object under it, at any depth,
///   in key order (ListObjectsV2, every page). Unlike a directory, a prefix is not filtered by
///   name ending: producers write `.gz` objects with no other extension (Segment's S3
///   destination), extension-less parts (warehouse unloads), and nested date "folders". Objects
///   whose name starts with `.` or `_` (markers such as `_SUCCESS`) and folder placeholders
///   (keys ending in `/`) are left out, with a warning that names them.
/// - `s3://bucket/name` without the slash is a key when an object has exactly that key, else
///   the prefix `name/` (like a path that is a file or a directory); nothing under either is
///   an error (exit 2). An empty prefix is a warning, as an empty file is.
/// - Content is recognized as for files: gzip by its first bytes, SDK snapshots by name or
///   content, SimpleAnalytics payloads by content. One ranged GET of each object's first 64 KiB
///   (16 at a time) decides; the few objects it does not decide are read further.
extension InputResolver {
    /// What resolving a command's arguments gave.
    package struct Resolved: Sendable {
        /// The inputs, in argument order.
        package var sources: [InputSource] = []
        /// The store `s3://` inputs are read from, when there are any.
        package var store: S3InputStore?
        /// What a person should know (empty prefixes, skipped marker objects).
        package var warnings: [String] = []
        /// Inputs left out by the caller's filter (other shards' inputs).
        package var leftOut = 0
    }

    /// How many bytes of an object are fetched to recognize it.
    static let headBytes = 64 << 10
    /// How many objects are recognized at once.
    static let recognitionWidth = 16

    /// Resolves `arguments` in order: files, directories, patterns, `-`, and `s3://` prefixes and
    /// keys, which are listed and read as `config.inputs.s3` says, with `http`'s client (the
    /// sources are read only while it runs). `onWarning` hears what a person should know (an
    /// empty prefix). Throws ``InputError`` for a local argument that matches nothing and
    /// ``InputFailure`` for an `s3://` one that cannot be listed or names nothing.
    package static func resolve(
        _ arguments: [String], config: ReplayConfig, http: S3HTTPClient, onWarning: (String) -> Void = { _ in }
    ) async throws -> [InputSource] {
        let resolved = try await resolve(
            arguments, s3: config.inputs.s3, http: http, records: config.inputs.shaping.readsRecords)
        resolved.warnings.forEach(onWarning)
        return resolved.sources
    }

    /// ``resolve(_:config:onWarning:)`` with the store and the warnings; `keep` filters the inputs
    /// before any object is read (a file shard's), and those it leaves out are counted. With
    /// `records`, every input is read as records (``ReplayConfig/InputShaping/readsRecords``).
    package static func resolve(
        _ arguments: [String], s3 settings: ReplayConfig.S3Inputs, http: S3HTTPClient,
        keep: (@Sendable (InputSource) -> Bool)? = nil, records: Bool = false
    ) async throws -> Resolved {
        var resolved = Resolved()
        for argument in arguments {
            guard S3Location.isS3(argument) else {
                for source in try resolve([argument], records: records) {
                    if keep?(source) ?? true { resolved.sources.append(source) } else { resolved.leftOut += 1 }
                }
                continue
            }
            let store = try resolved.store ?? S3InputStore(settings: settings, http: http)
            resolved.store = store
            let listed = try await list(argument, store: store, into: &resolved)
            let kept = listed.filter { keep?($0) ?? true }
            resolved.leftOut += listed.count - kept.count
            resolved.sources += try await recognize(kept, records: records)
        }
        return resolved
    }

    /// Checks the arguments without reading any S3 store: local ones must exist, `s3://` ones
    /// must be valid locations. For a command to fail early on a typo (exit 2).
    package static func check(_ arguments: [String]) throws {
        for argument in arguments {
            if S3Location.isS3(argument) {
                _ = try location(argument)
            } else {
                _ = try resolve([argument])
            }
        }
    }

    /// `argument` as a location; an ``InputFailure`` (exit 2) when it is not a valid one.
    static func location(_ argument: String) throws(InputFailure) -> S3Location {
        do {
            return try S3Location(parsing: argument)
        } catch {
            throw InputFailure(error)
        }
    }
}
