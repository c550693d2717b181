import Foundation
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import NIOCore
import NIOPosix
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

/// Answers 200 at once without looking at the request.
private struct NullTransport: DeliveryTransport {
    func send(_ request: DeliveryRequest) async -> DeliveryResponse { .status(200, headers: []) }
}

/// A throughput measurement, not a test: runs only with `MR_MEASURE=1` and asserts nothing about time.
@Suite struct EngineThroughputMeasurement {
    @Test(
        "engine throughput (set MR_MEASURE=1 to measure)",
        .enabled(if: ProcessInfo.processInfo.environment["MR_MEASURE"] == "1"))
    func measureThroughput() async throws {
        let n = 200_000
        let events = (0..<n).map { i in
            EncodedEvent(
                uncheckedBytes: Array(
                    #"{"type":"track","event":"Viewed","messageId":"m\#(i)","anonymousId":"u\#(i % 1000)","properties":{"sku":"ABC-\#(i)","price":12.5,"tags":["a","b"]},"timestamp":"2026-11-22T06:50:53.123Z"}"#
                        .utf8),
                messageId: "m\(i)", orderingKey: "u\(i % 1000)", tag: UInt64(i))
        }
        // As a default actor (the null transport has no event loop), then on one event loop.
        for loop in [nil, MultiThreadedEventLoopGroup.singleton.next()] as [(any EventLoop)?] {
            let sink = OutcomeSink()
            let engine = DeliveryEngine(
                configuration: config { $0.concurrency = 4 }, transport: NullTransport(),
                eventLoop: loop, onOutcomes: sink.callback)
            async let _ = engine.run()
            let start = ContinuousClock.now
            for e in events { _ = await engine.submit(e) }
            let stats = await engine.finish()
            let elapsed = (ContinuousClock.now - start).seconds
            #expect(stats.eventsDelivered == n)
            print(
                "MEASURE \(loop == nil ? "default actor" : "event loop"): delivered \(n) events in \(stats.batchesSent) requests in \(elapsed) s: \(Int(Double(n) / elapsed)) events/s"
            )
        }
    }
}
