import Foundation
import Logging
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import ReplayKit
import TestSupport
import Testing

/// The checkpoint is written once enough identity mappings were learned, not only every
/// `checkpointInterval`: the mappings wait in memory until a checkpoint commits them.
@Suite(.serialized) struct CheckpointByMappingsTests {
    /// `count` identify events, each teaching a mapping of its own, with messageIds `m-<line>`.
    static func identifies(_ count: Int) -> String {
        (1...count).map { i in
            #"{"type":"identify","messageId":"m-\#(i)","anonymousId":"a-\#(i)","userId":"u-\#(i)","timestamp":"2024-01-01T00:00:00.000Z"}"#
        }.joined(separator: "\n") + "\n"
    }

    /// Runs `lines` events with the interval an hour, the last event's batch held; waits until
    /// the checkpoint mirror shows more than `past` lines settled, then stops the run. Returns
    /// whether it did (within 60 s: a loaded machine runs the debug build slowly; it returns as
    /// soon as the checkpoint gets there).
    static func checkpointsWhileStalled(mappingsPerCheckpoint: Int, lines: Int, past: Int) async throws -> Bool {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeFile("\(dir)/in.ndjson", identifies(lines))
        let config = try ConfigLoader.load(path: try writeRunConfig(dir: dir, url: "http://127.0.0.1:9"), environment: [:])
        var options = RunOptions(inputs: ["\(dir)/in.ndjson"])
        options.progress = .off
        options.stopGrace = .milliseconds(50)
        options.checkpointInterval = .seconds(3600)
        options.mappingsPerCheckpoint = mappingsPerCheckpoint
        var logger = Logger(label: "checkpoint-by-mappings-test")
        logger.logLevel = .critical
        let held = "m-\(lines)"
        let transport = ScriptedTransport(holding: { events in events.contains { $0["messageId"]?.stringValue == held } })
        let stop = StopSignal()
        let watch = try FileWatch(dir)
        let run = Task { try await ReplayRunner(config: config, options: options, logger: logger, transport: transport).run(stop: stop) }
        let reached = await watch.wait(
            upTo: .seconds(60), until: { (readCheckpointMirror("\(dir)/state")?.inputs.values.first?.line ?? 0) > past })
        stop.request()
        _ = try await run.value
        return reached == .held
    }

    @Test func aRunCheckpointsOnceEnoughMappingsWereLearned() async throws {
        // 10,000 mappings, a checkpoint due every 500: while the last event's batch hangs and
        // the hour-long interval never comes, the checkpoint passes most of the file. (Without
        // the bound, nothing would be written before the stop, and the wait would time out.)
        #expect(try await Self.checkpointsWhileStalled(mappingsPerCheckpoint: 500, lines: 10_000, past: 4_000))
    }
}
