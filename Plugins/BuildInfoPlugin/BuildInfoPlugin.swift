import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into the target it is applied to: `BuildInfo.commit`, the commit the
/// package was built from (`git rev-parse --short=12 HEAD`); outside a git work tree (a source
/// tarball, a container build) the hex digits of the package's `BUILD_COMMIT` file, else "unknown".
///
/// The command reruns when the checked-out commit moves: its inputs are git's `HEAD` and its
/// reflog, which every commit, checkout and reset rewrites.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift")
        let git = root.appending(path: ".git")
        let watched = (["HEAD", "logs/HEAD", "packed-refs"].map { git.appending(path: $0) } + [root.appending(path: "BUILD_COMMIT")])
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        // The script prints "unknown" when git or the work tree is missing, so a build never
        // fails for want of version control.
        let script = """
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) \
              || commit=$(head -c 40 "$1/BUILD_COMMIT" 2>/dev/null | tr -cd '0-9a-f') || commit=""
            [ -n "$commit" ] || commit=unknown
            printf '/// Where this build came from (written by BuildInfoPlugin).\\nenum BuildInfo {\\n    /// The commit built, or "unknown".\\n    static let commit = "%s"\\n}\\n' "$commit" > "$2"
            """
        return [
            .buildCommand(
                displayName: "Recording the commit built",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", root.path, output.path],
                inputFiles: watched,
                outputFiles: [output])
        ]
    }
}
