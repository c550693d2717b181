import Foundation
import JSONCore
import Logging
@_spi(PerLine) import MetaRouterDelivery
import Timestamps

/// A swift-log handler that writes one JSON object per line to stderr:
/// `{"ts":"…","level":"info","label":"…","msg":"…", …metadata}`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    /// Creates a handler for `label`.
    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object = JSONObject([
            (key: "ts", value: .string(Timestamp.iso8601(Date()))),
            (key: "level", value: .string(event.level.rawValue)),
            (key: "label", value: .string(label)),
            (key: "msg", value: .string(event.message.description)),
        ])
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) { object[key] = .string(value.description) }
        var out = JSONValue.object(object).encoded
        out.append(0x0A)
        FileHandle.standardError.write(Data(out))
    }
}
