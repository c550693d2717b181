import Foundation

/// A product that is not built next to the test bundle.
package struct BinaryNotFound: Error, CustomStringConvertible {
    package let name: String
    package var description: String { "\(name) binary not found next to the test bundle (run swift build first)" }
}

/// A product built next to the test bundle, if there is one.
package func findBuiltBinary(_ name: String) -> URL? {
    var dirs = Bundle.allBundles.flatMap { [$0.bundleURL, $0.bundleURL.deletingLastPathComponent()] }
    dirs.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for d in dirs {
        let url = d.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
}

/// Whether ``findBuiltBinary(_:)`` finds `name` (for `.enabled(if:)`).
package func hasBuiltBinary(_ name: String) -> Bool { findBuiltBinary(name) != nil }

/// Finds a product built next to the test bundle.
package func builtBinary(_ name: String) throws -> URL {
    guard let url = findBuiltBinary(name) else { throw BinaryNotFound(name: name) }
    return url
}

/// Runs the built `mr-replay` in `dir` with `env` as its whole environment and `stdin` as its
/// input (none when nil), and returns its exit status and output.
package func runReplayBinary(
    _ args: [String], in dir: String, stdin: String? = nil,
    env: [String: String] = [:]
) throws -> (code: Int32, out: String, err: String) {
    let run = try Subprocess.run(
        try builtBinary("mr-replay"), args, directory: dir, environment: env, input: stdin.map { Data($0.utf8) })
    return (run.code, run.out, run.err)
}
