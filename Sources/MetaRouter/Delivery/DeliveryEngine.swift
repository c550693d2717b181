import DequeModule
import Foundation
import Logging
import NIOCore

/// Delivers events to `POST {host}{path}` in batches, with lanes per identity, byte and event caps,
/// rate limits, a circuit breaker and the status policy of the MetaRouter SDK. See `docs/delivery.md`.
///
/// Every submitted event gets exactly one outcome through `onOutcomes`, called on the engine's
/// isolation as soon as the outcome is known.
public actor DeliveryEngine {
    /// One unsettled event in a lane or batch: only what sending needs (its messageId and tag
    /// wait in ``unsettled``), so moving it between queues and batches is one reference.
    struct Pending: Sendable, SpliceableBytes {
        let seq: UInt64
        /// The event is `storage[range]`; a chunk's events share one storage.
        let storage: [UInt8]
        let range: Range<Int>
        let closingBrace: (index: Int, empty: Bool)
        /// The bytes are a chunk entry's, checked when the body is written (see ``submit(chunk:)``).
        let checkBytes: Bool
        /// Size as sent (with `sentAt`/`writeKey` spliced).
        let size: Int
    }

    /// A FIFO of events with at most one batch in flight.
    struct Lane {
        var queue = Deque<Pending>()
        var bytes = 0
        var wakeup: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        /// True while the lane waits on the clock (so `stop` may cancel the wait).
        var sleeping = false
        /// `flush()` asked for partial batches; cleared when the lane runs empty.
        var flushRequested = false
    }

    let configuration: DeliveryConfiguration
    let transport: any DeliveryTransport
    let clock: any EngineClock
    let random: any RandomSource
    let logger: Logger
    let onOutcomes: @Sendable ([EventOutcome]) -> Void
    /// The transport, when it takes bodies as buffers (the engine then writes each body once,
    /// into the buffer that is sent).
    let bufferTransport: (any BufferDeliveryTransport)?
    /// What the engine's isolation runs on (see ``unownedExecutor``): an event loop, or the
    /// executor of a default actor of its own.
    nonisolated let executor: EngineExecutor
    /// The event loop the engine runs on, if it runs on one; its lanes' tasks then prefer it
    /// (``EventLoopTaskExecutor``), and so may a task that mostly calls the engine (one feeding
    /// it chunks). Nil when the engine runs as a default actor.
    @_spi(PerLine) public nonisolated let laneExecutor: (any TaskExecutor)?
    let encoder: BatchEncoder
    let baseHeaders: [(name: String, value: String)]
    /// A lane whose oldest event has seen this many later submits is ready (see `isReady`).
    let staleAfter: UInt64

    /// The breaker, the rate limits, the current batch size and the retry budget, shared by the
    /// lanes' ``BatchDelivery`` machines.
    var policy: DeliveryPolicy
    var lanes: [Lane]
    var probeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Counts the times `probeWaiters` were resumed (an answer came, or the engine stopped).
    var probeWakeups = 0
    var submitWaiters: [CheckedContinuation<Void, Never>] = []
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// Submitted events without an outcome, by sequence number.
    var unsettled = UnsettledEvents()
    var nextSeq: UInt64 = 0
    var nextKeylessLane = 0
    var workersStarted = false
    var activeWorkers = 0
    /// Batches taken by lane workers and not yet finished (sent, retrying or split).
    var batchesOut = 0
    /// `finish` or `cancel` was called: no new events.
    var closing = false
    /// `cancel`'s grace ran out: workers were abandoned.
    var abandoned = false
    var counters = DeliveryStats()
    var stopCauseStorage: StopCause?
    /// Hears each batch that was not delivered on its first attempt (``observeBatches(_:)``).
    var batchObserver: (@Sendable (BatchTrace) -> Void)?
    /// The id of the next traced batch.
    var nextTraceId = 1

    /// The engine's executor: an event loop (the transport's own, when all its connections share
    /// one, so a lane sends, hears the answer and settles its events on one thread), or that of a
    /// default actor of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

    /// Creates an engine; nothing is sent until events are submitted.
    ///
    /// Where it runs: on `eventLoop` when one is given, else as a default actor of its own. Give
    /// it the event loop of a transport that keeps every connection on one (``LeanHTTPTransport``
    /// made with one `EventLoop`) when few calls come from other threads (mr-replay hands it
    /// chunks of events): a lane then sends, hears the answer and settles its events on that
    /// thread without a hop. Each call
    /// onto an engine on a loop from another thread wakes the loop, so for one `submit` per
    /// event from elsewhere the default actor is the faster choice. On an event loop, the lanes
    /// run there too, and so do the transport's `send` and the callbacks (`onOutcomes`, batch
    /// observers): none of them may block.
    public init(configuration: DeliveryConfiguration, transport: any DeliveryTransport,
                clock: any EngineClock = SystemEngineClock(), random: any RandomSource = SystemRandomSource(),
                logger: Logger = Logger(label: "mr.delivery"), eventLoop: (any EventLoop)? = nil,
                onOutcomes: @escaping @Sendable ([EventOutcome]) -> Void) {
        self.configuration = configuration
        self.transport = transport
        let bufferTransport = transport as? any BufferDeliveryTransport
        self.bufferTransport = bufferTransport
        if let loop = eventLoop {
            executor = .eventLoop(loop)
            laneExecutor = EventLoopTaskExecutor(loop)
        } else {
            executor = .defaultActor(EngineIsolation())
            laneExecutor = nil
        }
        self.clock = clock
        self.random = random
        self.logger = logger
        self.onOutcomes = onOutcomes
        self.encoder = BatchEncoder(writeKey: configuration.writeKey)
        let laneCount = max(configuration.concurrency, 1)
        self.staleAfter = UInt64(max(1, min(configuration.maxPendingEvents / 2, 4 * configuration.effectiveMaxBatchEvents * laneCount)))
        self.lanes = Array(repeating: Lane(), count: laneCount)
        self.policy = DeliveryPolicy(configuration: configuration, now: clock.now)
        self.baseHeaders = Self.headers(for: configuration)
    }

    /// The engine's counters so far.
    public var stats: DeliveryStats {
        var stats = counters
        stats.rateLimitWaits = policy.rateLimitWaits
        return stats
    }

    /// Why the engine stopped, if it did.
    public var stopCause: StopCause? { stopCauseStorage }

    /// The number of events per batch the engine currently uses (lowered by 413 answers).
    public var currentBatchLimit: Int { policy.batchLimit }

    /// Queues one event; suspends while too many are pending. Returns false (and does NOT report an outcome)
    /// if the engine has stopped, so the caller keeps the event.
    public func submit(_ event: EncodedEvent) async -> Bool {
        await waitForRoom()
        guard stopCauseStorage == nil && !closing else { return false }
        enqueue(event)
        return true
    }

    /// Whether a submit must wait for outcomes first.
    var mustWaitForRoom: Bool {
        stopCauseStorage == nil && !closing && unsettled.count >= configuration.maxPendingEvents
    }

    /// Suspends while too many events are pending (and the engine still takes events).
    func waitForRoom() async {
        while mustWaitForRoom {
            await park(unless: { !mustWaitForRoom }) {
                submitWaiters.append($0)
                wakeReadyLanes()  // a blocked submitter makes partial batches ready
            }
        }
    }

    /// Queues `event` on its lane (the engine takes events and has room).
    func enqueue(_ event: EncodedEvent) {
        let brace = BatchEncoder.closingBrace(of: event.bytes)
        enqueue(storage: event.bytes, range: 0..<event.bytes.count, closingBrace: brace, tag: event.tag,
                messageId: event.messageId, lane: laneIndex(for: event))
    }

    /// Queues the event `storage[range]` on lane `index` (the engine takes events and has room).
    /// With `wakeLanes` false the caller wakes the lanes that became ready itself
    /// (``wakeReadyLanes()``), once for many events: nothing else runs on the engine meanwhile.
    func enqueue(storage: [UInt8], range: Range<Int>, closingBrace brace: (index: Int, empty: Bool), checkBytes: Bool = false,
                 tag: UInt64, messageId: String, lane index: Int, wakeLanes: Bool = true) {
        startWorkersIfNeeded()
        counters.eventsSubmitted += 1
        let seq = nextSeq
        nextSeq += 1
        unsettled.append(seq, tag: tag, messageId: messageId)
        let pending = Pending(
            seq: seq, storage: storage, range: range, closingBrace: brace, checkBytes: checkBytes,
            size: encoder.sentSize(count: range.count, closingBrace: brace))
        if pending.size > configuration.maxEventBytes {
            settle([pending], .gaveUp(reason: .tooLarge,
                                      detail: "event is \(pending.size) bytes as sent, over maxEventBytes \(configuration.maxEventBytes)"))
            return
        }
        lanes[index].queue.append(pending)
        lanes[index].bytes += pending.size
        guard wakeLanes else { return }
        if isReady(index) { wake(index) }
        if seq & 63 == 0 { wakeReadyLanes() }  // quiet lanes turn ready as other lanes' events pass them
    }

    /// Sends partial batches now instead of waiting for a full batch.
    public func flush() {
        for i in lanes.indices where !lanes[i].queue.isEmpty {
            lanes[i].flushRequested = true
            wake(i)
        }
    }

    /// Sends everything queued and returns once every submitted event has exactly one outcome.
    public func finish() async -> DeliveryStats {
        closing = true
        resumeAll(&submitWaiters)
        for i in lanes.indices { wake(i) }
        if activeWorkers > 0 && !abandoned {
            await waitForDrain()
        }
        settleEverything()
        return stats
    }

    /// Stops: no new sends; in-flight requests get `grace` to settle; every other event is reported .notDelivered(.cancelled).
    public func cancel(grace: Duration) async -> DeliveryStats {
        closing = true
        stop(.cancelled)
        if activeWorkers > 0 && !abandoned {
            let deadline = clock.now + grace
            let clock = self.clock
            let timer = Task { [weak self] in
                try? await clock.sleep(until: deadline)
                await self?.graceExpired()
            }
            await waitForDrain()
            timer.cancel()
        }
        settleEverything()
        return stats
    }

    /// Suspends until every lane worker has ended or was abandoned.
    func waitForDrain() async {
        await park(unless: { activeWorkers == 0 || abandoned }) { drainWaiters.append($0) }
    }

    /// Requests to the endpoint carry these headers (plus `Content-Encoding` when gzipped).
    static func headers(for c: DeliveryConfiguration) -> [(name: String, value: String)] {
        let token = Data((c.writeKey + ":").utf8).base64EncodedString()
        var h: [(name: String, value: String)] = [
            ("Authorization", "Basic \(token)"),
            ("Content-Type", "application/json"),
        ]
        if c.tracing { h.append(("Trace", "true")) }
        if let agent = c.userAgent { h.append(("User-Agent", agent)) }
        return h
    }
}
