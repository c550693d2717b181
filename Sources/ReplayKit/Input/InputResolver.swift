import Foundation
import ObjectStorage

/// Turns command-line input arguments into ordered ``InputSource`` values.
///
/// - a file is used as given;
/// - a directory contributes its `*.ndjson`, `*.jsonl`, `*.json`, `*.csv`, `*.tsv` files (also with
///   `.gz` or `.zst`) and `*.zip` archives, sorted by name, not recursing;
/// - a pattern with `*`, `?` or `[` is expanded with `glob(3)`, sorted;
/// - `-` is standard input;
/// - `s3://bucket/prefix/` and `s3://bucket/key` are S3 objects, resolved by
///   ``resolve(_:config:onWarning:)`` (see `InputResolver+S3.swift`).
/// A file named `queue.v1.json` or `overflow.v1.json` (also `*.queue.v1.json`, `*-queue.v1.json`,
/// and with `.gz`), or any `.json` file that starts as an object whose first member is `version` or
/// `events`, is a MetaRouter SDK snapshot. A file whose first non-blank line is a SimpleAnalytics
/// payload, or that is one as a whole, is SimpleAnalytics input (``SimpleAnalyticsInput``).
public enum InputResolver {
    /// File name endings accepted inside directories: NDJSON, JSON (an array of events, or an SDK
    /// snapshot), CSV and TSV, each plain or compressed (gzip, zstd), and zip archives.
    public static let directoryExtensions: [String] = {
        let shapes = [".ndjson", ".jsonl", ".json", ".csv", ".tsv"]
        return shapes + shapes.flatMap { [$0 + ".gz", $0 + ".zst"] } + [".zip"]
    }()

    /// Resolves `arguments` in order. Throws when an argument matches nothing.
    public static func resolve(_ arguments: [String], records: Bool = false) throws -> [InputSource] {
        var out: [InputSource] = []
        for arg in arguments {
            if S3Location.isS3(arg) {
                throw InputError("\(arg): s3:// inputs are listed with resolve(_:config:), which knows the store")
            }
            if arg == "-" {
                out.append(InputSource(path: "-", kind: .ndjson))
                continue
            }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: arg, isDirectory: &isDir) {
                if isDir.boolValue {
                    let names = try FileManager.default.contentsOfDirectory(atPath: arg).sorted()
                    for name in names where directoryExtensions.contains(where: { name.hasSuffix($0) }) && !name.hasPrefix(".") {
                        let path = arg.hasSuffix("/") ? arg + name : arg + "/" + name
                        var sub: ObjCBool = false
                        if FileManager.default.fileExists(atPath: path, isDirectory: &sub), !sub.boolValue {
                            out.append(source(for: path, records: records))
                        }
                    }
                } else {
                    out.append(source(for: arg, records: records))
                }
                continue
            }
            if arg.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) {
                let matches = expandGlob(arg)
                guard !matches.isEmpty else { throw InputError("\(arg): no files match this pattern") }
                out.append(contentsOf: matches.map { source(for: $0, records: records) })
                continue
            }
            throw InputError("\(arg): no such file or directory")
        }
        return out
    }

    /// The source for one file, detecting snapshots and SimpleAnalytics stores unless the file
    /// is `records` (a vendor's export or a named shape).
    public static func source(for path: String, records: Bool = false) -> InputSource {
        if records { return InputSource(path: path, kind: .ndjson) }
        let name = (path as NSString).lastPathComponent
        if SnapshotInput.hasSnapshotName(name) { return InputSource(path: path, kind: .snapshot) }
        if name.hasSuffix(".json"), SnapshotInput.looksLikeSnapshot(path: path) {
            return InputSource(path: path, kind: .snapshot)
        }
        if let kind = SimpleAnalyticsInput.kind(ofFile: path) { return InputSource(path: path, kind: kind) }
        return InputSource(path: path, kind: .ndjson)
    }

    static func expandGlob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard glob(pattern, 0, nil, &g) == 0 else { return [] }
        var out: [String] = []
        for i in 0..<Int(g.gl_pathc) {
            if let p = g.gl_pathv[i] {
                let path = String(cString: p)
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue { out.append(path) }
            }
        }
        return out.sorted()
    }
}
