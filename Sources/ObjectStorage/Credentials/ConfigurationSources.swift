import Foundation

/// Where the AWS settings come from: environment variables and files. Injected so tests can give
/// their own environment and file system.
package struct ConfigurationSources: Sendable {
    /// The environment variables.
    package var environment: [String: String]
    /// Reads a whole file as UTF-8; nil when it does not exist or cannot be read.
    package var readFile: @Sendable (String) -> String?

    /// Sources from the given environment and file reader.
    package init(environment: [String: String], readFile: @escaping @Sendable (String) -> String?) {
        self.environment = environment
        self.readFile = readFile
    }

    /// This process's environment and the real file system.
    package static var process: ConfigurationSources {
        ConfigurationSources(environment: ProcessInfo.processInfo.environment) { path in
            FileManager.default.contents(atPath: path).flatMap { String(bytes: $0, encoding: .utf8) }
        }
    }

    /// The variable's value, nil when unset or empty.
    package func value(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The home directory (`HOME`), used for `~/.aws/…`.
    var homeDirectory: String? { value("HOME") }

    /// The profile the AWS tools would use: `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default`.
    package var profileName: String { value("AWS_PROFILE") ?? value("AWS_DEFAULT_PROFILE") ?? "default" }

    /// `AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`.
    package var credentialsFilePath: String? {
        expandingTilde(value("AWS_SHARED_CREDENTIALS_FILE")) ?? homeDirectory.map { "\($0)/.aws/credentials" }
    }

    /// `AWS_CONFIG_FILE`, else `~/.aws/config`.
    package var configFilePath: String? {
        expandingTilde(value("AWS_CONFIG_FILE")) ?? homeDirectory.map { "\($0)/.aws/config" }
    }

    private func expandingTilde(_ path: String?) -> String? {
        guard let path else { return nil }
        guard path.hasPrefix("~/"), let home = homeDirectory else { return path }
        return home + path.dropFirst()
    }
}
