/// A problem with a mapping configuration, naming the key it is at (as a path from the
/// configuration's root, for example `mapping.fields["properties.price"].type`).
package struct MappingConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the problem is.
    package let key: String
    /// What is wrong.
    package let message: String

    /// An error at `key`.
    package init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    /// `key: message`.
    package var description: String { "\(key): \(message)" }
}
