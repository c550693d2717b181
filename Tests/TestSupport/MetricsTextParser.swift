import Foundation

/// A small parser of the Prometheus text exposition format (0.0.4) for the tests: `# HELP` and
/// `# TYPE` lines and samples `name{label="value",...} value`, with label values unescaped. It
/// refuses what the format does not allow, so a malformed file fails the test that reads it.
package struct ExpositionText {
    package struct Sample: Equatable {
        package var name: String
        package var labels: [String: String]
        package var value: Double
    }

    package var help: [String: String] = [:]
    package var type: [String: String] = [:]
    package var samples: [Sample] = []

    package struct Malformed: Error, CustomStringConvertible {
        package let line: Int
        package let why: String
        package var description: String { "line \(line): \(why)" }
    }

    package init(parsing text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw Malformed(line: 0, why: "the last line has no newline") }
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let line = String(raw)
            do {
                try parse(line)
            } catch {
                throw Malformed(line: index + 1, why: "\(error.text): \(line)")
            }
        }
    }

    private mutating func parse(_ line: String) throws(Why) {
        if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
            let parts = line.dropFirst(7).split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, Self.isMetricName(parts[0]) else { throw Why("bad HELP/TYPE line") }
            if line.hasPrefix("# HELP ") {
                guard help[parts[0]] == nil else { throw Why("second HELP for \(parts[0])") }
                help[parts[0]] = parts[1].replacingOccurrences(of: "\\\\", with: "\\")
            } else {
                guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1]) else { throw Why("bad type") }
                guard type[parts[0]] == nil, !samples.contains(where: { $0.name == parts[0] }) else {
                    throw Why("TYPE for \(parts[0]) must come once, before its samples")
                }
                type[parts[0]] = parts[1]
            }
            return
        }
        if line.hasPrefix("#") || line.isEmpty { return }
        samples.append(try Self.sample(line))
    }

    private static func sample(_ line: String) throws(Why) -> Sample {
        var chars = Substring(line)
        let name = String(chars.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
        guard isMetricName(name) else { throw Why("bad metric name") }
        chars = chars.dropFirst(name.count)
        var labels: [String: String] = [:]
        if chars.first == "{" {
            chars = chars.dropFirst()
            while chars.first != "}" {
                let label = String(chars.prefix { $0 != "=" })
                guard !label.isEmpty, label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { throw Why("bad label name") }
                chars = chars.dropFirst(label.count)
                guard chars.hasPrefix("=\"") else { throw Why("expected =\" after \(label)") }
                chars = chars.dropFirst(2)
                var value = ""
                while let c = chars.first, c != "\"" {
                    chars = chars.dropFirst()
                    if c == "\\" {
                        guard let escaped = chars.first else { throw Why("unterminated escape") }
                        chars = chars.dropFirst()
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Why("bad escape \\\(escaped)")
                        }
                    } else {
                        value.append(c)
                    }
                }
                guard chars.first == "\"" else { throw Why("unterminated label value") }
                chars = chars.dropFirst()
                guard labels.updateValue(value, forKey: label) == nil else { throw Why("label \(label) twice") }
                if chars.first == "," { chars = chars.dropFirst() }
            }
            chars = chars.dropFirst()
        }
        let rest = chars.split(separator: " ")
        guard chars.first == " ", rest.count == 1 || rest.count == 2, let value = Double(rest[0]) else {
            throw Why("bad value")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    package static func isMetricName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == ":" }
    }

    /// The one sample of `name` whose labels include `labels`; nil when there is none or several.
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { s in s.name == name && labels.allSatisfy { s.labels[$0.key] == $0.value } }
        return matching.count == 1 ? matching[0].value : nil
    }

    /// The samples of `name`, by the value of `label`.
    package func values(_ name: String, by label: String) -> [String: Double] {
        Dictionary(samples.filter { $0.name == name }.map { ($0.labels[label] ?? "", $0.value) }, uniquingKeysWith: +)
    }
}

/// Why a line is malformed.
struct Why: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
