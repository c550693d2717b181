import Foundation

/// The files of one dead-letter file and its rotations: `dead-letter.ndjson` is written to, and
/// when `dead_letter.max_bytes` would be passed it is renamed to `dead-letter.N.ndjson`, N one
/// more than the highest already there. Reading them in ``all`` order (rotated by number, then
/// the current file) gives the records oldest first.
package struct DeadLetterFiles: Sendable {
    /// The current file, `<dir>/dead-letter.ndjson`.
    package let path: String

    /// The files of the dead-letter file at `path`.
    package init(path: String) { self.path = path }

    private var directory: String {
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? "." : dir
    }
    private var stem: String { ((path as NSString).lastPathComponent as NSString).deletingPathExtension }
    private var ext: String { ((path as NSString).lastPathComponent as NSString).pathExtension }

    /// The path of rotation `number`: `dead-letter.3.ndjson`.
    package func rotatedPath(_ number: Int) -> String {
        let name = ext.isEmpty ? "\(stem).\(number)" : "\(stem).\(number).\(ext)"
        return (directory as NSString).appendingPathComponent(name)
    }

    /// The numbers of the rotated files there are, in increasing order.
    package func rotatedNumbers() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let prefix = stem + ".", suffix = ext.isEmpty ? "" : "." + ext
        return names.compactMap { name -> Int? in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return nil }
            let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
            guard middle.allSatisfy(\.isASCII), middle.allSatisfy(\.isNumber), let n = Int(middle), n > 0 else { return nil }
            return n
        }.sorted()
    }

    /// Every file that exists, oldest first: the rotated ones by number, then the current one.
    package func all() -> [String] {
        var files = rotatedNumbers().map(rotatedPath)
        if FileManager.default.fileExists(atPath: path) { files.append(path) }
        return files
    }

    /// The number the next rotation takes.
    package func nextRotationNumber() -> Int { (rotatedNumbers().last ?? 0) + 1 }
}
