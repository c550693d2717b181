import ArgumentParser
import Collector
import CommandLineSupport
import CountOnlySink
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServerLifecycle
import ServiceLifecycle

/// `mr-collector`: a local Segment/MetaRouter-compatible ingestion endpoint with fault injection.
@main
struct MRCollector: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mr-collector",
        abstract: "A loopback ingestion endpoint (POST /v1/batch) with seeded fault injection.",
        discussion: """
            The first line on stdout is `mr-collector listening on http://HOST:PORT` (https with --tls-cert). \
            SIGINT/SIGTERM shut down gracefully and print the final stats JSON on stderr.

            \(ExitCodes.help)
            """,
        version: "mr-collector (commit \(BuildInfo.commit))"
    )

    /// Runs Swift concurrency on the server's NIO event loops (one thread per core), so request
    /// handlers do not hop between NIO's threads and the concurrency pool for every body part.
    /// Usage errors exit with 2 (not ArgumentParser's 64); see ``ExitCodes``.
    static func main() async {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await ToolMain.run(MRCollector.self, tool: "mr-collector", otherwise: ExitCodes.failed)
    }

    @Option(help: "Port to listen on; 0 picks a free port.") var port: Int = 0
    @Option(help: "Interface to bind.") var host: String = "127.0.0.1"
    @Option(name: .customLong("write-key"), help: "The write key clients must send.") var writeKey: String
    @Option(help: "Keep accepted events in FILE.ndjson, or in SQLite for .sqlite/.sqlite3/.db.") var store: String?
    @Option(
        name: .customLong("simpleanalytics-store"),
        help: "Keep POST /simpleanalytics payloads in FILE (NDJSON); default: NAME.simpleanalytics.ndjson next to --store.")
    var simpleAnalyticsStore: String?
    @Option(name: .customLong("base-path"), help: "Path prefix before /v1/batch and /stats.") var basePath: String = ""
    @Flag(help: "Answer 400 to the whole request when any event is invalid.") var strict = false
    @Option(name: .customLong("oversize-status"), help: "Status for requests over the limits: 400 or 413.")
    var oversizeStatus: Int = 400
    @Flag(
        name: .customLong("count-only"),
        help: "Benchmark mode: a lean SwiftNIO server that authenticates and counts events; no checks, faults or storage.")
    var countOnly = false
    @Option(help: "Event loop threads of the --count-only server (default 1).") var threads: Int?
    @Option(name: .customLong("fail-rate"), help: "Share of requests failed with --fail-status (default 0).")
    var failRate: Double?
    @Option(name: .customLong("fail-status"), help: "500, 502, 503 or 408 (default 500).") var failStatus: Int?
    @Option(name: .customLong("throttle-rate"), help: "Share of requests answered 429 (default 0).")
    var throttleRate: Double?
    @Option(name: .customLong("retry-after"), help: "Retry-After seconds on 429s (default 1).") var retryAfter: Int?
    @Option(name: .customLong("reset-rate"), help: "Share of connections reset (default 0).") var resetRate: Double?
    @Option(name: .customLong("latency-ms"), help: "Latency added to every ingestion response (default 0).")
    var latencyMs: Int?
    @Option(name: .customLong("down-after-ms"), help: "Start of the down window after start.") var downAfterMs: Int?
    @Option(name: .customLong("down-for-ms"), help: "Length of the down window (503 for all).") var downForMs: Int?
    @Option(name: .customLong("fail-first"), help: "Fail the first N requests with --fail-status (default 0).")
    var failFirst: Int?
    @Option(name: .customLong("max-events-per-second"), help: "A quota: accept at most this many events a second; 429 (Retry-After: 1) over it.")
    var maxEventsPerSecond: Double?
    @Option(help: "Seed of the fault generator (default 1).") var seed: UInt64?
    @Option(name: .customLong("tls-cert"), help: "Serve HTTPS with this PEM certificate (chain); needs --tls-key.")
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.") var tlsKey: String?
    @Option(name: .customLong("tls-client-ca"), help: "Require client certificates that chain to this PEM CA (mutual TLS).")
    var tlsClientCA: String?

    /// The TLS settings of the TLS flags, if any.
    var tls: CollectorTLS? {
        guard let tlsCert, let tlsKey else { return nil }
        return CollectorTLS(certificateFile: tlsCert, privateKeyFile: tlsKey, clientCAFile: tlsClientCA)
    }

    /// The fault-injection flags given on the command line.
    var faultFlags: [String] {
        var flags: [String] = []
        if failRate != nil { flags.append("--fail-rate") }
        if failStatus != nil { flags.append("--fail-status") }
        if throttleRate != nil { flags.append("--throttle-rate") }
        if retryAfter != nil { flags.append("--retry-after") }
        if resetRate != nil { flags.append("--reset-rate") }
        if latencyMs != nil { flags.append("--latency-ms") }
        if downAfterMs != nil { flags.append("--down-after-ms") }
        if downForMs != nil { flags.append("--down-for-ms") }
        if failFirst != nil { flags.append("--fail-first") }
        if maxEventsPerSecond != nil { flags.append("--max-events-per-second") }
        if seed != nil { flags.append("--seed") }
        return flags
    }

    func validate() throws {
        guard [400, 413].contains(oversizeStatus) else { throw ValidationError("--oversize-status must be 400 or 413") }
        guard FaultConfiguration.allowedFailureStatuses.contains(failStatus ?? 500) else {
            throw ValidationError("--fail-status must be 500, 502, 503 or 408")
        }
        for (name, rate) in [("--fail-rate", failRate), ("--throttle-rate", throttleRate), ("--reset-rate", resetRate)]
        where !(0...1).contains(rate ?? 0) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
        if let maxEventsPerSecond, !(maxEventsPerSecond >= 1 && maxEventsPerSecond.isFinite) {
            throw ValidationError("--max-events-per-second must be at least 1")
        }
        if downAfterMs != nil, downForMs == nil {
            throw ValidationError("--down-after-ms needs --down-for-ms")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if tlsClientCA != nil, tlsCert == nil { throw ValidationError("--tls-client-ca needs --tls-cert and --tls-key") }
        if countOnly {
            // The count-only server injects no faults, keeps nothing and checks no event fields:
            // refuse those flags rather than silently ignore them.
            let refused =
                faultFlags + (store != nil ? ["--store"] : []) + (strict ? ["--strict"] : [])
                + (simpleAnalyticsStore != nil ? ["--simpleanalytics-store"] : [])
                + (tlsCert != nil ? ["--tls-cert", "--tls-key"] : []) + (tlsClientCA != nil ? ["--tls-client-ca"] : [])
            if !refused.isEmpty {
                throw ValidationError(
                    "--count-only does not inject faults, store events, validate them or serve TLS; "
                        + "remove \(refused.joined(separator: ", ")) or drop --count-only")
            }
            if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be 1...64") }
        } else if threads != nil {
            throw ValidationError("--threads applies to --count-only only")
        }
    }

    func makeConfiguration() -> CollectorConfiguration {
        var down: DownWindow?
        if let downForMs {
            down = DownWindow(start: .milliseconds(downAfterMs ?? 0), duration: .milliseconds(downForMs))
        }
        var configuration = CollectorConfiguration(
            host: host, port: port, writeKey: writeKey, basePath: basePath,
            store: store.map(CollectorStore.forPath) ?? .none, strict: strict, oversizeStatus: oversizeStatus,
            faults: FaultConfiguration(
                seed: seed ?? 1, failureRate: failRate ?? 0, failureStatus: failStatus ?? 500,
                throttleRate: throttleRate ?? 0, retryAfter: retryAfter ?? 1, resetRate: resetRate ?? 0,
                latency: .milliseconds(latencyMs ?? 0), down: down, failFirst: failFirst ?? 0,
                maxEventsPerSecond: maxEventsPerSecond),
            tls: tls)
        configuration.simpleAnalyticsStore = simpleAnalyticsStore
        return configuration
    }

    /// The count-only sink's configuration.
    func makeCountOnlyConfiguration() -> CountOnlyConfiguration {
        CountOnlyConfiguration(
            host: host, port: port, writeKey: writeKey, basePath: basePath, oversizeStatus: oversizeStatus)
    }

    func run() async throws {
        try await serve()
    }

    /// Runs the server in a `ServiceGroup` that shuts it down gracefully on SIGTERM and SIGINT,
    /// then prints the final stats on stderr.
    /// - Throws: ``CommandFailure`` with ``ExitCodes/cannotListen`` or ``ExitCodes/usage`` when the
    ///   server could not start, or the error that stopped it.
    func serve() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "mr-collector")
        // The count-only sink gets event loops of its own (1 thread unless --threads says
        // otherwise); the full collector serves on NIO's shared singleton.
        let ownLoops =
            countOnly
            ? MultiThreadedEventLoopGroup(numberOfThreads: threads ?? CountOnlyServer.defaultEventLoopThreads) : nil
        let sink: RunningSink
        if let ownLoops {
            sink = .countOnly(
                CountOnlyServer(configuration: makeCountOnlyConfiguration(), eventLoopGroup: ownLoops, logger: logger))
        } else {
            sink = .full(CollectorServer(configuration: makeConfiguration(), logger: logger))
        }
        let group = ServiceGroup(
            configuration: .init(services: [sink.service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let served = await Result(awaiting: {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                let port: Int
                do {
                    port = try await sink.listeningPort()
                } catch {
                    throw startFailure(error)
                }
                FileHandle.standardOutput.write(Data("mr-collector listening on \(sink.scheme)://\(sink.host):\(port)\n".utf8))
                _ = try await tasks.next()
            }
        })
        try? await ownLoops?.shutdownGracefully()
        try served.get()
        FileHandle.standardError.write(Data((sink.statsJSON + "\n").utf8))
    }

    /// The exit for an error that kept the server from listening.
    func startFailure(_ error: any Error) -> CommandFailure {
        switch error {
        case is CollectorStoreError:
            return CommandFailure(code: ExitCodes.usage, message: "cannot open the store: \(error)")
        case is CollectorTLSError:
            return CommandFailure(code: ExitCodes.usage, message: "cannot serve TLS: \(error)")
        case is IOError, is SocketAddressError:
            return CommandFailure(
                code: ExitCodes.cannotListen, message: "cannot listen on \(host):\(port): \(error)")
        default:
            return CommandFailure(code: ExitCodes.failed, message: "\(error)")
        }
    }
}
