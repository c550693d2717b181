import Foundation

/// A fresh temporary directory; the caller removes it.
package func makeTempDir() throws -> String {
    let dir = NSTemporaryDirectory() + "replaykit-" + UUID().uuidString.lowercased()
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Writes `text` to `path`.
package func writeFile(_ path: String, _ text: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}
