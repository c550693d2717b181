import Foundation
import JSONCore
import Logging
import ReplayKit
import ServerTesting
import TestSupport
import Testing
import Timestamps
import ZstdCodec

/// Vendors' exports read end to end: each fixture (written in the vendor's documented shape)
/// dry-runs to the expected Segment events, field for field; ids are stable; bad records and
/// damaged files are dead letters that name the file, member, line and field.
@Suite final class VendorExportRunTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    static let vendors = ["amplitude", "mixpanel", "ga4", "mparticle", "posthog", "rudderstack"]

    /// The VendorExports fixtures: `NAME.ndjson` and the recipe's events, `NAME.expected.ndjson`.
    static func fixture(_ name: String) -> String {
        packageRoot + "/Tests/VendorExportsTests/Fixtures/\(name)"
    }

    /// A config in `dir/name.yaml` with `yaml` added.
    func config(_ name: String, _ yaml: String) throws -> ReplayConfig {
        let path = "\(dir)/\(name).yaml"
        try writeFile(path, "state_dir: \(dir)/state-\(name)\n" + yaml + "\n")
        return try ConfigLoader.load(path: path, environment: [:])
    }

    /// Dry-runs `inputs`: the events written, the dead letters, the counters and the summary.
    func dryRun(_ config: ReplayConfig, _ inputs: [String], limit: Int? = nil) throws -> (
        events: [JSONObject], deadLetters: [JSONObject], stats: EnrichStats, summary: TrialSummary
    ) {
        let out = "\(dir)/out-\(UUID().uuidString).ndjson"
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var summary = TrialSummary()
        let sources = try InputResolver.resolve(inputs, records: config.inputs.shaping.readsRecords)
        let stats = try DryRunner.run(config: config, inputs: sources, outputFD: fd, limit: limit, onSummary: { summary = $0 })
        close(fd)
        func objects(_ path: String) throws -> [JSONObject] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
            return try text.split(separator: "\n").map { try #require(try JSONValue(parsing: String($0)).objectValue) }
        }
        return (try objects(out), try objects(DryRunner.deadLetterPath(stateDirectory: config.stateDir)), stats, summary)
    }

    /// The expected events of a fixture (a line holds one event, or an array of a record's).
    static func expected(_ name: String) throws -> [JSONObject] {
        let text = try String(contentsOfFile: fixture("\(name).expected.ndjson"), encoding: .utf8)
        return try text.split(separator: "\n").flatMap { line -> [JSONObject] in
            let value = try JSONValue(parsing: String(line))
            if let array = value.arrayValue { return array.compactMap(\.objectValue) }
            return [try #require(value.objectValue)]
        }
    }

    /// Every leaf of `object` by its dotted path.
    static func leaves(_ object: JSONObject, _ prefix: String = "") -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, value) in object.members {
            let path = prefix.isEmpty ? key : prefix + "." + key
            if let inner = value.objectValue, !inner.members.isEmpty {
                out.merge(leaves(inner, path)) { $1 }
            } else {
                out[path] = value
            }
        }
        return out
    }

    @Test(arguments: vendors)
    func aVendorsExportDryRunsToTheExpectedEventsFieldForField(vendor: String) throws {
        let (events, deadLetters, _, summary) = try dryRun(try config(vendor, "inputs: { from: \(vendor) }"), [Self.fixture("\(vendor).ndjson")])
        let expected = try Self.expected(vendor)
        #expect(deadLetters.isEmpty, "\(deadLetters)")
        #expect(events.count == expected.count && summary.events == expected.count)
        for (got, want) in zip(events, expected) {
            let (g, w) = (Self.leaves(got), Self.leaves(want))
            for (path, value) in w where path != "context.device.advertisingId" {  // the privacy rules may remove it
                #expect(g[path] == value, "\(vendor) \(want["messageId"]?.stringValue ?? ""): \(path)")
            }
            // What enrichment adds: the library, and an anonymousId derived from the userId.
            for path in g.keys where w[path] == nil {
                #expect(["context.library.name", "context.library.version", "anonymousId"].contains(path), "\(vendor): \(path) added")
            }
            if w["anonymousId"] == nil, let derived = g["anonymousId"]?.stringValue {
                #expect(w["userId"] != nil && derived.count == 36, "derived from the userId")
            }
        }
        #expect(summary.recipe == vendor && summary.records > 0)
    }

    @Test func messageIdsAreStableAndADuplicatedRecordKeepsItsIds() throws {
        // Mixpanel rows without $insert_id and GA4 rows (no event id) get derived ids.
        for vendor in ["mixpanel", "ga4", "mparticle"] {
            let once = try String(contentsOfFile: Self.fixture("\(vendor).ndjson"), encoding: .utf8)
            try writeFile("\(dir)/\(vendor)-twice.ndjson", once + once)
            let config = try config(vendor, "inputs: { from: \(vendor) }")
            let first = try dryRun(config, ["\(dir)/\(vendor)-twice.ndjson"]).events.map { $0["messageId"]?.stringValue ?? "" }
            let again = try dryRun(config, ["\(dir)/\(vendor)-twice.ndjson"]).events.map { $0["messageId"]?.stringValue ?? "" }
            #expect(first == again, "the same ids on every run")
            let half = first.count / 2
            #expect(half > 0 && Array(first[..<half]) == Array(first[half...]), "a duplicated record keeps its ids")
            #expect(Set(first[..<half]).count == half, "different records, different ids")
        }
        let summary = try dryRun(try config("m", "inputs: { from: mixpanel }"), [Self.fixture("mixpanel.ndjson")]).summary
        #expect(summary.messageIdsDerivedByRecipe == 3, "the fixture's rows without $insert_id")
    }

    @Test func anAmplitudeRecordWithoutEventTypeNamesTheFileLineAndField() throws {
        var lines = try String(contentsOfFile: Self.fixture("amplitude.ndjson"), encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: #""event_type":"$identify","#, with: "")
        try writeFile("\(dir)/amp.ndjson", lines.joined(separator: "\n") + "\n")
        let (events, deadLetters, _, _) = try dryRun(try config("a", "inputs: { from: amplitude }"), ["\(dir)/amp.ndjson"])
        #expect(events.count == 4, "the other records are sent")
        let letter = try #require(deadLetters.first)
        #expect(deadLetters.count == 1 && letter["reason"]?.stringValue == "missing_field")
        #expect(letter["line"] == .number(JSONNumber(2)) && letter["source"]?.stringValue == "\(dir)/amp.ndjson")
        #expect(letter["detail"]?.stringValue?.contains("amplitude") == true && letter["detail"]?.stringValue?.contains("event_type") == true)
        #expect(letter["raw"]?.stringValue == lines[1], "the record as it was")
    }

    @Test func aRaggedCSVRowIsADeadLetterNamingItsLine() throws {
        let csv = """
            type,event,userId,timestamp,properties.plan
            track,Signed Up,u1,2025-03-01T10:00:00Z,pro
            track,Upgraded,u2,2025-03-01T11:00:00Z,team,extra
            identify,,u3,2025-03-01T12:00:00Z,free

            """
        try writeFile("\(dir)/events.csv", csv)
        let (events, deadLetters, _, _) = try dryRun(try config("c", "inputs: { format: csv }"), ["\(dir)/events.csv"])
        #expect(events.map { $0["userId"]?.stringValue } == ["u1", "u3"])
        #expect(events.first?["properties"]?.objectValue?["plan"]?.stringValue == "pro")
        let letter = try #require(deadLetters.first)
        #expect(deadLetters.count == 1 && letter["reason"]?.stringValue == "invalid_csv_record" && letter["line"] == .number(JSONNumber(3)))
        #expect(letter["detail"]?.stringValue?.contains("6") == true, "says how many fields: \(letter)")
    }

    @Test func aZstdInputIsRecognizedByItsContent() throws {
        let text = generateEvents(count: 500).text
        var compressed: [UInt8] = []
        let writer = try ZstdWriter(level: 3)
        try Array(text.utf8).withUnsafeBytes { try writer.write($0, into: &compressed) }
        try writer.finishFrame(into: &compressed)
        try Data(compressed).write(to: URL(fileURLWithPath: "\(dir)/events.log"))  // no telling name
        try writeFile("\(dir)/plain.ndjson", text)
        let config = try config("z", "")
        let fromZstd = try dryRun(config, ["\(dir)/events.log"]).events
        let fromPlain = try dryRun(config, ["\(dir)/plain.ndjson"]).events
        #expect(fromZstd.count > 400 && fromZstd == fromPlain)
    }

    @Test func aTransformThatFailsDeadLettersTheEventNamingTheStep() throws {
        let yaml = """
            inputs: { from: amplitude }
            transform:
              - set: {path: event.first, value: 1}
            """
        let (events, deadLetters, _, summary) = try dryRun(try config("t", yaml), [Self.fixture("amplitude.ndjson")])
        // A track's `event` is a string: the step cannot write through it (the other types have none).
        let failed = deadLetters.filter { $0["reason"]?.stringValue == "transform_failed" }
        #expect(failed.count == 2 && events.count == 3, "\(deadLetters)")
        #expect(failed.allSatisfy { $0["detail"]?.stringValue?.contains("step 1") == true }, "\(failed)")
        #expect(summary.transformSteps.first?.failed == failed.count)
    }
}

/// Archives made by Python's `zipfile`, with one member's compressed bytes damaged.
extension VendorExportRunTests {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Writes `members` (name, contents), deflated, to `path`, then flips a byte in the middle of
    /// member `damaged`'s compressed data.
    func writeZip(_ path: String, members: [(String, String)], damaged: Int) throws {
        var script = "import zipfile\nwith zipfile.ZipFile('\(path)', 'w', zipfile.ZIP_DEFLATED) as z:\n"
        for (k, member) in members.enumerated() {
            try writeFile("\(dir)/member-\(k)", member.1)
            script += "    z.write('\(dir)/member-\(k)', '\(member.0)')\n"
        }
        script += """
            z = zipfile.ZipFile('\(path)')
            info = z.infolist()[\(damaged)]
            data = bytearray(open('\(path)', 'rb').read())
            start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
            data[start + info.compress_size // 2] ^= 0xFF
            open('\(path)', 'wb').write(data)

            """
        try writeFile("\(dir)/zip.py", script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.python))
        process.arguments = ["\(dir)/zip.py"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func aDamagedZipMemberIsADeadLetterNamingTheFileAndMember() throws {
        let lines = try String(contentsOfFile: Self.fixture("amplitude.ndjson"), encoding: .utf8).split(separator: "\n")
        // Amplitude's export: hourly files; the second member's records are many, so its damage is in the middle.
        let many = (0..<400).map { n in lines[0].replacingOccurrences(of: "5f0adeff-6668-4427-8d02-57d803a2b841", with: "id-\(n)") }
        let members = [
            ("123456/123456_2025-03-01_9#0.json", lines[0...1].joined(separator: "\n") + "\n"),
            ("123456/123456_2025-03-01_10#0.json", many.joined(separator: "\n") + "\n"),
            ("123456/123456_2025-03-01_11#0.json", lines[2...].joined(separator: "\n") + "\n"),
        ]
        try writeZip("\(dir)/export.zip", members: members, damaged: 1)
        let (events, deadLetters, _, summary) = try dryRun(try config("z", "inputs: { from: amplitude }"), ["\(dir)/export.zip"])
        let letter = try #require(deadLetters.last)
        #expect(letter["reason"]?.stringValue == "damaged_member" && letter["source"]?.stringValue == "\(dir)/export.zip", "\(letter)")
        #expect(letter["detail"]?.stringValue?.hasPrefix("zip: member \"\(members[1].0)\"") == true, "\(letter)")
        // What was read of the member before its damage showed stands (sent, or dead-lettered as
        // what it is); the member's dead letter comes after those lines.
        let readOfSecond = events.filter { $0["messageId"]?.stringValue?.hasPrefix("id-") == true }.count + deadLetters.count - 1
        #expect(letter["line"] == .number(JSONNumber(3 + readOfSecond)), "\(letter)")
        let ids = Set(events.compactMap { $0["messageId"]?.stringValue })
        #expect(ids.isSuperset(of: ["5f0adeff-6668-4427-8d02-57d803a2b841", "gi-001"]), "the members before and after it are read")
        #expect(events.count + deadLetters.count + summary.enrichment.skippedTotal >= 5, "nothing else is lost")
    }
}

/// A run stopped in the middle of a file of any shape resumes where it stopped.
extension VendorExportRunTests {
    /// `count` events as a pretty-printed JSON array, or as CSV with a header.
    static func shaped(_ shape: String, count: Int) -> String {
        let rows = (0..<count).map { n in (id: "m-\(n)", user: "u-\(n % 17)", event: n % 5 == 0 ? "Order, \"big\"" : "Viewed") }
        if shape == "csv" {
            let lines = rows.map { r in "track,\"\(r.event.replacingOccurrences(of: "\"", with: "\"\""))\",\(r.user),\(r.id),2025-03-01T10:00:00Z" }
            return "type,event,userId,messageId,timestamp\n" + lines.joined(separator: "\n") + "\n"
        }
        let objects = rows.map { r in
            "  {\"type\": \"track\", \"event\": \"\(r.event.replacingOccurrences(of: "\"", with: "\\\""))\", \"userId\": \"\(r.user)\", \"messageId\": \"\(r.id)\", \"timestamp\": \"2025-03-01T10:00:00Z\"}"
        }
        return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
    }

    @Test(arguments: [("json", false), ("json", true), ("csv", false), ("csv", true)])
    func aStoppedRunResumesInTheMiddleOfAFile(shape: String, gzip: Bool) async throws {
        var path = "\(dir)/events.\(shape)"
        try writeFile(path, Self.shaped(shape, count: 900))
        if gzip {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
            process.arguments = [path]
            try process.run()
            process.waitUntilExit()
            path += ".gz"
        }
        try await RunTarget.run(dir: dir) { target in
            let config = try writeRunConfig(dir: dir, url: target.url)
            var reports: [RunReport] = []
            for limit in [250, 300, nil] {
                var options = RunOptions(inputs: [path])
                (options.stateDirectory, options.progress, options.limit) = ("\(dir)/state", .off, limit)
                var logger = Logger(label: "test-run")
                logger.logLevel = .error
                reports.append(
                    try await replayInGroup(config: try ConfigLoader.load(path: config, environment: [:]), options: options, logger: logger))
            }
            let got = try await target.received()
            #expect(reports.map(\.events.delivered) == [250, 300, 350])
            #expect(got.events.count == 900 && got.copies.values.allSatisfy { $0 == 1 }, "each event once")
            #expect(got.events["m-5"]?["event"]?.stringValue == "Order, \"big\"")
        }
    }
}

/// The trial summary of `validate` and `run --dry-run --summary`.
extension VendorExportRunTests {
    @Test func validateSaysWhatABackfillWouldSend() throws {
        var lines = try String(contentsOfFile: Self.fixture("amplitude.ndjson"), encoding: .utf8).split(separator: "\n").map(String.init)
        lines.append(#"{"event_type":"Broken","#)
        try writeFile("\(dir)/amp.ndjson", lines.joined(separator: "\n") + "\n")
        let yaml = """
            inputs: { from: amplitude }
            transform:
              - drop: {event: Level Completed}
              - map_events: {Checkout Started: Checkout Began}
            """
        let summary = try Validator.validate(config: try config("v", yaml), inputs: [InputSource(path: "\(dir)/amp.ndjson", kind: .ndjson)])
        let trial = summary.trial
        #expect(trial.records == 7 && trial.events == 4 && trial.recipe == "amplitude")
        #expect(trial.types == ["track": 1, "identify": 1, "group": 1, "page": 1])
        #expect(trial.names["track Checkout Began"] == 1 && trial.names["track Level Completed"] == nil)
        #expect(trial.earliestMillis.map { Timestamp.iso8601(epochMillis: $0) } == "2025-03-01T09:59:58.123Z")
        #expect(trial.enrichment.deadLetters == ["invalid_json": 1])
        #expect(trial.enrichment.skipped == ["no_event": 1, "dropped_by_transform": 1])
        #expect(trial.transformSteps.map(\.kind) == ["drop", "map_events"])
        #expect(trial.transformSteps.map(\.dropped) == [1, 0] && trial.transformSteps[1].changed == 1)
        #expect(trial.userIdsGiven + trial.enrichment.userIdsCarried <= trial.events)
        let text = summary.text
        for words in [
            "would send 4 events from 7 records (amplitude), 2025-03-01T09:59:58.123Z to ", "types: ", "track Checkout Began 1",
            "messageId: 4 given, 0 derived by the recipe, 0 generated", "transforms: 1 drop: 1 dropped; 2 map_events: 1 changed",
            "would dead-letter: invalid_json 1", "would not send: dropped_by_transform 1, no_event 1",
        ] {
            #expect(text.contains(words), "\(words) in:\n\(text)")
        }
        let json = try JSONValue(parsing: summary.json)
        #expect(json.objectValue?["summary"]?.objectValue?["events"] == .number(JSONNumber(4)))
    }
}
