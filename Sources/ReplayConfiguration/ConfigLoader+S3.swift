import EventTransforms
import Foundation
import ObjectStorage

extension ConfigLoader {
    /// Reads `inputs.s3`. The endpoint and region are checked as the S3 reader will use them; the
    /// environment the configuration is loaded with is where credentials are looked up.
    static func readS3(_ node: YAMLNode, into s3: inout ReplayConfig.S3Inputs, _ r: ConfigReader) throws(ConfigError) {
        let s = "inputs.s3"
        let m = try r.members(
            node, section: s,
            allowed: ["endpoint", "region", "addressing_style", "request_payer", "idle_timeout_seconds", "max_attempts"])
        if let v = m["endpoint"]?.value {
            let text = try r.string(v, "\(s).endpoint")
            if !text.isEmpty {
                do {
                    _ = try S3Endpoint(parsing: text)
                } catch {
                    throw r.error(v, "'\(s).endpoint': \(error.message)")
                }
                s3.endpoint = text
            }
        }
        if let v = m["region"]?.value {
            let text = try r.string(v, "\(s).region")
            let allowed = text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            guard !text.isEmpty, allowed else {
                throw r.error(v, "'\(s).region' must be a region name such as us-east-1 or eu-west-1 (or 'auto' for R2)")
            }
            s3.region = text
        }
        if let v = m["addressing_style"]?.value {
            let text = try r.string(v, "\(s).addressing_style")
            guard let style = ReplayConfig.S3Inputs.AddressingStyle(rawValue: text) else {
                let names = ReplayConfig.S3Inputs.AddressingStyle.allCases.map(\.rawValue)
                var message = "'\(s).addressing_style' must be auto, path or virtual"
                if let close = KeySuggestion.closest(to: text, among: names) { message += "; did you mean '\(close)'?" }
                throw r.error(v, message)
            }
            s3.addressingStyle = style
        }
        if let v = m["request_payer"]?.value {
            let text = try r.string(v, "\(s).request_payer")
            s3.requestPayer = text.lowercased() == "requester" ? true : try r.bool(v, "\(s).request_payer")
        }
        if let v = m["idle_timeout_seconds"]?.value {
            s3.idleTimeoutSeconds = try r.double(v, "\(s).idle_timeout_seconds", min: 1, max: 3600)
        }
        if let v = m["max_attempts"]?.value { s3.maxAttempts = try r.int(v, "\(s).max_attempts", min: 1, max: 100) }
    }
}
