import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// A buffer transport on one event loop: records each body it is handed, whether `send` ran on
/// its loop, and answers from a script.
final class LoopBoundTransport: BufferDeliveryTransport {
    struct Sent {
        let body: [UInt8]
        let onLoop: Bool
    }

    let loop: any EventLoop
    let allocator = ByteBufferAllocator()
    private let script: @Sendable (Int) -> DeliveryResponse
    private let log = Mutex<[Sent]>([])

    init(loop: any EventLoop, script: @escaping @Sendable (Int) -> DeliveryResponse = { _ in .status(200, headers: []) }) {
        self.loop = loop
        self.script = script
    }

    var homeEventLoop: (any EventLoop)? { loop }
    var sent: [Sent] { log.withLock { $0 } }

    func send(
        url: String, headers: [(name: String, value: String)], body: ByteBuffer, timeout: Duration,
        isolation: isolated (any Actor)?
    ) async -> DeliveryResponse {
        let index = log.withLock { log in
            log.append(Sent(body: Array(body.readableBytesView), onLoop: loop.inEventLoop))
            return log.count - 1
        }
        return script(index)
    }

    func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        var body = allocator.buffer(capacity: request.body.count)
        body.writeBytes(request.body)
        return await send(url: request.url, headers: request.headers, body: body, timeout: request.timeout, isolation: nil)
    }
}

@Suite struct EngineOnEventLoopTests {
    /// The engine runs on the transport's loop: the lane sends from that thread, the body is the
    /// exact encoding, and a retry of the same events is the same bytes with a new `sentAt`.
    @Test func aRetryIsTheSameBodyRestampedAndEverySendRunsOnTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let transport = LoopBoundTransport(loop: loop) { $0 == 0 ? .status(503, headers: []) : .status(200, headers: []) }
        let clock = TestClock(advancing: .automatically)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config(), bufferTransport: transport, clock: clock, random: FixedRandom(value: 0.5),
            eventLoop: transport.homeEventLoop, onOutcomes: sink.callback)
        async let _ = engine.run()
        for i in 0..<5 { #expect(await engine.submit(testEvent("m\(i)", user: "u"))) }
        let stats = await engine.finish()
        #expect(stats.batchesSent == 2 && stats.batchesRetried == 1)
        let sent = transport.sent
        try #require(sent.count == 2)
        #expect(sent.allSatisfy { $0.onLoop }, "every send ran on the engine's event loop")
        let first = try #require(JSONValue(parsing: sent[0].body).objectValue)
        let second = try #require(JSONValue(parsing: sent[1].body).objectValue)
        let firstStamp = try #require(first["sentAt"]?.stringValue), secondStamp = try #require(second["sentAt"]?.stringValue)
        #expect(firstStamp != secondStamp, "the retry is stamped when it is sent")
        let restamped = String(decoding: sent[0].body, as: UTF8.self).replacingOccurrences(of: firstStamp, with: secondStamp)
        #expect(restamped == String(decoding: sent[1].body, as: UTF8.self))
        #expect(sink.all.count == 5 && sink.all.allSatisfy { $0.result == .delivered })
    }

    /// Without an event loop the engine runs as a default actor, whatever its transport: the
    /// lanes get no task executor, and a buffer transport still gets its body as one buffer.
    @Test(arguments: [false, true])
    func withoutAnEventLoopTheEngineIsADefaultActor(bufferTransport: Bool) async {
        let clock = TestClock(advancing: .automatically)
        let loopBound = LoopBoundTransport(loop: MultiThreadedEventLoopGroup.singleton.next())
        let engine: DeliveryEngine
        if bufferTransport {
            engine = DeliveryEngine(configuration: config(), bufferTransport: loopBound, clock: clock, onOutcomes: { _ in })
        } else {
            engine = DeliveryEngine(configuration: config(), transport: ScriptedTransport(clock: clock), clock: clock, onOutcomes: { _ in })
        }
        async let _ = engine.run()
        #expect(engine.laneExecutor == nil)
        #expect(await engine.submit(testEvent("m", user: "u")))
        #expect(await engine.finish().batchesSucceeded == 1)
        if bufferTransport { #expect(loopBound.sent.count == 1 && !loopBound.sent[0].onLoop) }
    }

    /// Lanes that are about to wait, `finish()` and submits interleave differently on every run
    /// when the engine and its lanes share one event loop: no interleaving may lose a wake-up
    /// (a lost one leaves a partial batch unsent and `finish()` waiting forever, which the time
    /// limit turns into a failure).
    @Test(.timeLimit(.minutes(2))) func finishingRightAfterSubmitsNeverLosesAWakeUp() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        for round in 0..<300 {
            let transport = LoopBoundTransport(loop: loop)
            let sink = OutcomeSink()
            var c = config()
            c.concurrency = 4
            let engine = DeliveryEngine(configuration: c, bufferTransport: transport, eventLoop: loop, onOutcomes: sink.callback)
            async let _ = engine.run()
            let events = 1 + round % 7
            for i in 0..<events { _ = await engine.submit(testEvent("m\(i)", user: "u\(i % 3)")) }
            _ = await engine.finish()  // a finish() that never returns fails the time limit
            #expect(sink.all.count == events && sink.all.allSatisfy { $0.result == .delivered }, "round \(round)")
        }
    }
}
