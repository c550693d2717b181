import Collector
import Foundation
import JSONCore
import ServerTesting
import TestSupport
import Testing

@testable import ReplayKit

/// The path of a file of this repository.
private func repositoryFile(_ relative: String) -> String {
    packageRoot + "/" + relative
}

/// `docs/report.schema.json` itself: closed, documented, and strict enough to catch a change.
@Suite struct ReportSchemaDocumentTests {
    let validator: SchemaValidator
    init() throws { validator = try SchemaValidator(schemaAt: repositoryFile("docs/report.schema.json")) }

    @Test func everyFieldIsDocumentedAndEveryObjectIsClosed() throws {
        #expect(validator.undocumented() == [])
        var open: [String] = []
        func walk(_ schema: JSONObject, _ path: String) {
            if schema["properties"] != nil, schema["additionalProperties"] != .bool(false) { open.append(path) }
            for (key, value) in schema { if case .object(let sub) = value { walk(sub, path + "/" + key) } }
        }
        walk(validator.root, "#")
        #expect(open == [], "objects with named fields must be closed")
        #expect(validator.root["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func theSchemaVersionIsTheOneTheReportWrites() throws {
        let versions = validator.root["properties"]?.objectValue?["schema_version"]?.objectValue?["enum"]
        #expect(versions == .array([.number(JSONNumber(RunReport.currentSchemaVersion))]))
    }

    /// The validator rejects what it should: a field the schema does not describe, a missing
    /// field, a value outside an enum, a wrong type and a negative count.
    @Test func aReportThatDriftsFromTheSchemaFails() throws {
        var report = RunReport()
        report.runId = "0000abcd"
        report.inputs = [RunReport.Input(path: "/in.ndjson")]
        let good = try JSONValue(parsing: Array(try report.encoded()))
        #expect(validator.errors(good) == [])

        func mutated(_ edit: (inout JSONObject) -> Void) -> JSONValue {
            var object = good.objectValue!
            edit(&object)
            return .object(object)
        }
        let extra = validator.errors(mutated { $0["filtered_by_window"] = .number(JSONNumber(1)) })
        #expect(extra == ["/filtered_by_window: not in the schema (additionalProperties is false)"])
        let missing = validator.errors(mutated { $0["run_id"] = nil })
        #expect(missing == ["/: missing required 'run_id'"])
        let status = validator.errors(mutated { $0["status"] = .string("done") })
        #expect(status.count == 1 && status[0].hasPrefix("/status: "))
        let nested = validator.errors(
            mutated { o in
                var events = o["events"]!.objectValue!
                events["delivered"] = .number(JSONNumber(-1))
                events["read"] = .string("9")
                o["events"] = .object(events)
            })
        #expect(Set(nested) == ["/events/delivered: -1 is below the minimum 0", "/events/read: expected integer, found string"])
        let inInput = validator.errors(
            mutated { o in
                var input = o["inputs"]!.arrayValue![0].objectValue!
                input["lines_total"] = .number(JSONNumber(3))
                o["inputs"] = .array([.object(input)])
            })
        #expect(inInput == ["/inputs/0/lines_total: not in the schema (additionalProperties is false)"])
    }

    @Test func aKeywordTheValidatorDoesNotCheckIsAnError() throws {
        let schema = try JSONValue(parsing: #"{"type":"string","pattern":"^a"}"#).objectValue!
        #expect(SchemaValidator(root: schema).errors(.string("b")) == ["/: the schema uses 'pattern', which this validator does not check"])
    }
}

/// Reports of real runs conform to the schema: deliveries, dead letters, retries, splits,
/// problem batches, a shard, and a run that stopped early with pending events.
@Suite(.serialized, .heavy) final class ReportSchemaRunTests {
    let dir: String
    let validator: SchemaValidator
    init() throws {
        dir = try makeTempDir()
        validator = try SchemaValidator(schemaAt: repositoryFile("docs/report.schema.json"))
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// The report on disk and its history copy, checked against the schema.
    func expectConforms(_ report: RunReport, stateDir: String) throws {
        let onDisk = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: stateDir + "/report.json"))))
        #expect(validator.errors(onDisk) == [], "report.json")
        let history = stateDir + "/reports/" + RunHistory.fileName(startedAt: report.startedAt, runId: report.runId)
        let copy = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: history))))
        #expect(validator.errors(copy) == [], "history copy")
        #expect(onDisk.objectValue?["schema_version"] == .number(JSONNumber(1)))
    }

    @Test func aRunWithFaultsRejectionsAndDeadLettersConforms() async throws {
        let faults = FaultConfiguration(seed: 3, failureRate: 0.2, failureStatus: 503, throttleRate: 0.1, retryAfter: 0, resetRate: 0.05)
        try await RunTarget.run(dir: dir, faults: faults) { target in
            let (text, _) = generateEvents(count: 400, bigEveryNth: 100)
            try writeFile("\(dir)/in.ndjson", text + "not json\n\n")
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "privacy: { drop_properties: [] }")
            try writeFile(
                config,
                try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                    of: "  max_events: 50", with: "  max_events: 50\n  max_event_bytes: 100000\n  max_bytes: 2000000"))

            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"], shard: try Shard(index: 0, count: 1))
            _ = try await target.received()

            #expect(report.status == .completedWithDrops, "\(report.summary)")
            #expect(report.events.deadLettered > 1 && report.deadLetterReasons["invalid_json"] == 1)
            #expect(report.deadLetterReasons["rejected_400"] ?? 0 > 0)
            #expect(report.batches.retried > 0 && report.batches.split > 0)
            #expect(!report.batches.problems.isEmpty && report.batches.problemSummary != nil)
            #expect(report.shard == "0/1")
            try expectConforms(report, stateDir: "\(dir)/state")
        }
    }

    @Test func aRunThatStoppedWithPendingEventsConforms() async throws {
        try await RunTarget.run(dir: dir, faults: FaultConfiguration(down: DownWindow(start: .zero, duration: .seconds(3600)))) { outage in
            try writeFile("\(dir)/in.ndjson", generateEvents(count: 120).text)
            let config = try writeRunConfig(dir: dir, url: outage.url)
            try writeFile(
                config,
                try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                    of: "max_attempts: 100", with: "max_attempts: 2"))

            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            _ = try await outage.received()

            #expect(report.status == .stoppedTransient, "\(report.summary)")
            #expect(report.stopReason != nil && report.events.pending > 0)
            #expect(report.batches.problems.contains { $0.outcome.result == "pending" })
            try expectConforms(report, stateDir: "\(dir)/state")
        }
    }
}
