import Collector
import Logging
import MetaRouter
import NIOPosix
import ReplayKit

/// Runs a replay as `mr-replay run` does, without its signal handling: a `RunService` in a
/// `ServiceGroup` with the embedded collector (`Collector`'s `EmbeddedCollector`) when the
/// config names it.
func replayInGroup(config: ReplayConfig, options: RunOptions, logger: Logger, stop: StopSignal = StopSignal()) async throws -> RunReport {
    let collector =
        config.sendsToEmbeddedCollector
        ? EmbeddedCollector(
            writeKey: config.writeKey,
            outputPath: ReplayConfig.collectedPath(stateDirectory: options.stateDirectory ?? config.stateDir),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        : nil
    var url: EmbeddedCollectorURL?
    if let collector { url = { try await collector.baseURL() } }
    let runner = ReplayRunner(config: config, options: options, logger: logger, embeddedCollector: url)
    let service = RunService(stop: stop) { stop in try await runner.run(stop: stop) }
    return try await service.runInGroup(after: collector.map { [$0] } ?? [], logger: logger)
}
