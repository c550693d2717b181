import Foundation
import ReplayConfiguration
import SQLiteSupport

/// The device anonymousId of a state directory, in `<state_dir>/device-anonymous-id`: one for
/// the directory and all its shards (`shard-K-of-N/`), so every shard fills the same id into
/// the same lines and hashes them to the same shard.
///
/// It is created once, atomically: a candidate is written to a file of its own and linked to
/// the name with `link(2)`, which fails when the name exists, so of several shards starting at
/// the same moment exactly one creates it and the others read that one. A state directory made
/// before the file existed keeps its device anonymousId: the candidate is the one stored in its
/// `identity.sqlite`.
enum DeviceIdentity {
    /// The file's name in the state directory.
    static let fileName = "device-anonymous-id"

    /// The device anonymousId of the state directory `root`, creating it when there is none.
    static func shared(root: String, makeUUID: () -> String = { UUID().uuidString.lowercased() }) throws -> String {
        let path = root + "/" + fileName
        if let existing = try read(path) { return existing }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let candidate = storedId(root: root) ?? makeUUID()
        let temporary = path + ".tmp-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((candidate + "\n").utf8)) else {
            throw UsageError("cannot create \(temporary) in the state directory")
        }
        defer { unlink(temporary) }
        if link(temporary, path) == 0 { return candidate }
        guard errno == EEXIST, let winner = try read(path) else {
            throw UsageError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return winner
    }

    /// The id in the file at `path`, or nil when there is no file.
    private static func read(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path)") }
        let id = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty else { throw UsageError("\(path) is empty; remove it to make a new device anonymousId") }
        return id
    }

    /// The device anonymousId stored in `<root>/identity.sqlite`, when that database exists and
    /// can be read now.
    private static func storedId(root: String) -> String? {
        let path = root + "/identity.sqlite"
        guard FileManager.default.fileExists(atPath: path), let db = try? SQLiteDatabase(path: path) else { return nil }
        defer { db.close() }
        return try? db.queryText("SELECT value FROM meta WHERE key = 'device_anonymous_id'", [])
    }
}
