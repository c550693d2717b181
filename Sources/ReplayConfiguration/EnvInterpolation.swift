/// Expands `${NAME}` and `${NAME:-default}` in configuration values.
///
/// An unset (or, with `:-`, empty) variable without a default becomes the empty string.
/// `$$` stands for a literal `$`.
enum EnvInterpolation {
    /// Why an expansion failed; `offset` counts characters into the value.
    struct Failure: Error {
        let message: String
    }

    /// Expands `text` using `environment`.
    static func expand(_ text: String, environment: [String: String]) throws(Failure) -> String {
        guard text.contains("$") else { return text }
        var out = ""
        var chars = Substring(text)
        while let dollar = chars.firstIndex(of: "$") {
            out += chars[..<dollar]
            let after = chars.index(after: dollar)
            if after < chars.endIndex, chars[after] == "$" {
                out += "$"
                chars = chars[chars.index(after: after)...]
                continue
            }
            guard after < chars.endIndex, chars[after] == "{" else {
                out += "$"
                chars = chars[after...]
                continue
            }
            guard let close = chars[after...].firstIndex(of: "}") else {
                throw Failure(message: "unterminated '${' in value")
            }
            let inner = chars[chars.index(after: after)..<close]
            let name: Substring
            var fallback: Substring?
            if let sep = inner.range(of: ":-") {
                name = inner[..<sep.lowerBound]
                fallback = inner[sep.upperBound...]
            } else {
                name = inner
            }
            guard !name.isEmpty, name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else {
                throw Failure(message: "invalid variable name '\(name)' in '${...}'")
            }
            let value = environment[String(name)]
            if let fallback, value == nil || value!.isEmpty {
                out += fallback
            } else {
                out += value ?? ""
            }
            chars = chars[chars.index(after: close)...]
        }
        out += chars
        return out
    }
}
