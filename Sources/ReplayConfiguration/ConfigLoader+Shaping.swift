import EventTransforms
import InputShapes
import JSONCore
import VendorExports

extension ConfigLoader {
    /// Reads `inputs.from`, `inputs.format` and `inputs.csv`.
    static func readShaping(
        _ m: [String: (key: YAMLNode, value: YAMLNode)], into shaping: inout ReplayConfig.InputShaping, _ r: ConfigReader
    ) throws(ConfigError) {
        if let v = m["from"]?.value {
            let name = try r.string(v, "inputs.from")
            guard let format = ExportFormat(named: name) else {
                throw r.error(v, "'inputs.from' must be one of \(ExportFormat.names) (got '\(name)')")
            }
            shaping.from = format
            shaping.written.append("from=\(format.rawValue)")
        }
        if let v = m["format"]?.value {
            let name = try r.string(v, "inputs.format")
            guard let format = ReplayConfig.InputFormat(rawValue: name) else {
                let names = ReplayConfig.InputFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw r.error(v, "'inputs.format' must be one of \(names) (got '\(name)')")
            }
            shaping.format = format
            shaping.written.append("format=\(format.rawValue)")
        }
        if let v = m["csv"]?.value {
            let value = try v.jsonValue(r, "inputs.csv")
            do {
                shaping.csv = try CSVInputConfiguration(parsing: value, key: "inputs.csv")
            } catch {
                throw r.error(v, "\(error)")
            }
            shaping.written.append("csv=\(value.encodedString)")
        }
    }

    /// Reads the top-level `transform` list.
    static func readTransform(_ node: YAMLNode, into shaping: inout ReplayConfig.InputShaping, _ r: ConfigReader) throws(ConfigError) {
        let value = try node.jsonValue(r, "transform")
        do {
            shaping.transform = try TransformPlan(parsing: value)
        } catch {
            throw r.error(node, "\(error)")
        }
        shaping.written.append("transform=\(value.encodedString)")
    }
}
