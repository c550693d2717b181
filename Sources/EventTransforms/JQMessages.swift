import CJQ

/// The messages libjq reports through its error callback while compiling.
final class JQMessages {
    /// The messages, in order.
    var lines: [String] = []

    /// The compile errors in one line: jq's messages without its closing count ("jq: 1
    /// compile error") and with their line breaks as spaces.
    var compileErrors: String {
        let useful = lines.filter { !($0.hasPrefix("jq: ") && $0.contains(" compile error")) }
        let text = (useful.isEmpty ? lines : useful).joined(separator: "; ")
        return String(text.map { $0 == "\n" ? " " : $0 }).trimmingSpaces()
    }

    /// libjq's error callback: `context` is an unretained ``JQMessages``. The callback owns
    /// `message` (libjq hands it over), and ``JQValues/message(consuming:)`` frees it.
    static func collect(_ context: UnsafeMutableRawPointer?, _ message: jv) {
        guard let context else {
            jv_free(message)
            return
        }
        let box = Unmanaged<JQMessages>.fromOpaque(context).takeUnretainedValue()
        box.lines.append(JQValues.message(consuming: message))
    }
}

extension String {
    /// The string without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
