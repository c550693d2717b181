import EventTransforms
import InputShapes
import JSONCore
import VendorExports

extension ReplayConfig {
    /// What a run does to each record before it is enriched (`inputs.from`, `inputs.format`,
    /// `inputs.csv`, `transform`): which vendor's export it reads, in which shape, and the
    /// transforms. The defaults leave NDJSON of Segment-spec events as they are.
    public struct InputShaping: Sendable, Equatable {
        /// `inputs.from` (or `--from`): a vendor's export to turn into Segment-spec events.
        package var from: ExportFormat?
        /// `inputs.format`: the shape of the inputs.
        package var format = InputFormat.auto
        /// `inputs.csv`: how CSV and TSV inputs map to events (nil: the default mapping).
        package var csv: CSVInputConfiguration?
        /// `transform`: the steps each event goes through.
        package var transform: TransformPlan?
        /// The configuration of the above as written (JSON), for a partition's fingerprint.
        package var written: [String] = []

        /// Creates the defaults.
        public init() {}

        /// Whether the inputs are records of a named shape or vendor, never an SDK's snapshot or
        /// SimpleAnalytics store (those are recognized by their content otherwise).
        package var readsRecords: Bool { from != nil || format != .auto }

        /// Whether records go through a recipe or transforms.
        package var converts: Bool { from != nil || !(transform?.isEmpty ?? true) }
    }

    /// `inputs.format`: how the bytes of an input (once decompressed) are cut into records.
    package enum InputFormat: String, Sendable, Equatable, CaseIterable {
        /// NDJSON, or a JSON array of events when the content starts with `[`; CSV or TSV by the
        /// file's name (`.csv`, `.tsv`, also compressed).
        case auto
        /// One JSON value per line.
        case ndjson
        /// One JSON array of events as the whole input, streamed.
        case jsonArray = "json_array"
        /// Comma-separated values with a header (RFC 4180).
        case csv
        /// Tab-separated values with a header.
        case tsv
    }
}

extension ReplayConfig {
    /// Reads the inputs as `name`'s export (`--from`, over `inputs.from`).
    public mutating func read(from name: String) throws {
        guard let format = ExportFormat(named: name) else {
            throw UsageError("'\(name)' is not a recipe; the recipes are \(ExportFormat.names)")
        }
        inputs.shaping.from = format
        inputs.shaping.written.removeAll { $0.hasPrefix("from=") }
        inputs.shaping.written.append("from=\(format.rawValue)")
    }
}

extension ExportFormat {
    /// The recipe named `name`, or nil.
    package init?(named name: String) { self.init(rawValue: name.lowercased()) }

    /// The recipes' names, for messages.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
