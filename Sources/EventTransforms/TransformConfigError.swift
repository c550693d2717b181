/// Why a `transform:` section cannot be used: which step (1-based), which key, and the closest
/// valid key when the key looks like a typo.
package struct TransformConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step's position in the list, from 1; 0 when the section itself is wrong.
    package var step: Int
    /// The step's kind (`rename`, `jq`, ...), when it is known.
    package var kind: String?
    /// The key that is wrong (unknown, missing or of the wrong type), if the problem is one key.
    package var key: String?
    /// The valid key closest to a misspelled ``key``.
    package var suggestion: String?
    /// What is wrong, without the step prefix.
    package var message: String

    /// Creates an error.
    package init(_ message: String, step: Int, kind: String? = nil, key: String? = nil, suggestion: String? = nil) {
        self.step = step
        self.kind = kind
        self.key = key
        self.suggestion = suggestion
        self.message = message
    }

    /// For example `transform step 2 (rename): unknown key 'form'; did you mean 'from'?`.
    package var description: String {
        var prefix = step == 0 ? "transform" : "transform step \(step)"
        if let kind { prefix += " (\(kind))" }
        var text = "\(prefix): \(message)"
        if let suggestion { text += "; did you mean '\(suggestion)'?" }
        return text
    }
}
