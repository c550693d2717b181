import Foundation
import JSONCore
import Synchronization

/// A small persisted string store, like the SDK's use of UserDefaults.
public protocol KeyValueStorage: Sendable {
    /// The stored value for `key`.
    func string(forKey key: String) -> String?
    /// Stores `value` for `key`; `nil` removes it. Persists before returning.
    func set(_ value: String?, forKey key: String) throws
}

/// A key-value store kept in one JSON file, written atomically on every change (its directory
/// is created on the first).
public final class FileKeyValueStorage: KeyValueStorage {
    private let path: String
    private let fileSystem: any FileSystem
    private let values: Mutex<[String: String]>

    /// Opens (or creates on first write) the store at `path`.
    public init(path: String, fileSystem: any FileSystem = LocalFileSystem()) throws {
        self.path = path
        self.fileSystem = fileSystem
        var loaded: [String: String] = [:]
        if let bytes = try fileSystem.read(path), let object = (try? JSONParser.parse(bytes))?.objectValue {
            for (k, v) in object { if let s = v.stringValue { loaded[k] = s } }
        }
        self.values = Mutex(loaded)
    }

    public func string(forKey key: String) -> String? { values.withLock { $0[key] } }

    public func set(_ value: String?, forKey key: String) throws {
        try values.withLock { dict in
            dict[key] = value
            let object = JSONObject(dict.sorted { $0.key < $1.key }.map { (key: $0.key, value: .string($0.value)) })
            try fileSystem.createDirectory(containing: path)
            try fileSystem.writeAtomically(path, JSONValue.object(object).encoded)
        }
    }
}

/// A key-value store held in memory: ``IdentityStorage/inMemory``'s.
package final class InMemoryKeyValueStorage: KeyValueStorage {
    private let values = Mutex<[String: String]>([:])

    /// Creates an empty store.
    package init() {}

    /// The value for `key`, if one is set.
    package func string(forKey key: String) -> String? { values.withLock { $0[key] } }
    /// Sets or (with nil) removes the value for `key`.
    package func set(_ value: String?, forKey key: String) throws { values.withLock { $0[key] = value } }
}
