import DequeModule
import EventLoopExecution
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// Delivers events to `POST {host}{path}` in batches, with lanes per identity, byte and event caps,
/// rate limits, a circuit breaker and the status policy of the MetaRouter SDK. See `docs/delivery.md`.
///
/// A swift-service-lifecycle `Service`: creating it starts nothing; ``run()`` runs its lanes as
/// child tasks until ``finish()``, ``cancel(grace:)``, a graceful shutdown or the cancellation of
/// its task. Events submitted before ``run()`` wait in their lanes.
///
/// Every submitted event gets exactly one outcome through `onOutcomes`, called on the engine's
/// isolation as soon as the outcome is known.
public actor DeliveryEngine: Service {
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
        /// Set while the lane's worker waits for events.
        var wakeup: Wakeup?
        /// Resumed to cancel the lane's worker (it waits on the clock when the engine stops, or
        /// `cancel`'s grace ran out); set while ``run()`` runs the lane.
        var abort: Wakeup?
        /// True while the lane waits on the clock (so `stop` may cancel the wait).
        var sleeping = false
        /// `flush()` asked for partial batches; cleared when the lane runs empty.
        var flushRequested = false
    }

    /// How the engine hands a transport its requests.
    enum Sender: Sendable {
        /// As ``DeliveryRequest``s with the body in a byte array.
        case requests(any DeliveryTransport)
        /// As buffers the engine writes each body into once, sent from the engine's isolation.
        case buffers(any BufferDeliveryTransport)

        /// The transport, for requests.
        var transport: any DeliveryTransport {
            switch self {
            case .requests(let t): t
            case .buffers(let t): t
            }
        }
    }

    let configuration: DeliveryConfiguration
    let sender: Sender
    let clock: any EngineClock
    let random: any RandomSource
    let logger: Logger
    let onOutcomes: @Sendable ([EventOutcome]) -> Void
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
    // Unchecked (`lanes`, `unsettled`, `nextSeq`, `counters`): the properties every event
    // touches (five accesses to submit one, one to settle it). The actor runs one call at a
    // time, and every access to them is instantaneous: none is passed `inout` to a function or
    // held across a call, a closure or an `await`, so no two accesses can overlap. The dynamic
    // checks cost about 2 % of an end-to-end run's CPU (each looks up a thread-local access set).
    @exclusivity(unchecked) var lanes: [Lane]
    var probeWaiters: [Wakeup] = []
    /// Counts the times `probeWaiters` were resumed (an answer came, or the engine stopped).
    var probeWakeups = 0
    var submitWaiters: [Wakeup] = []
    /// Waits for a submitter to wait for room (``waitForASubmitterToWait()``).
    var submitterWaits: [Wakeup] = []
    /// `finish` and `cancel` waiting for the lanes to end.
    var drainWaiters: [Wakeup] = []
    /// Submitted events without an outcome, by sequence number.
    @exclusivity(unchecked) var unsettled = UnsettledEvents()
    @exclusivity(unchecked) var nextSeq: UInt64 = 0
    var nextKeylessLane = 0
    /// Where ``run()`` is: not yet called, running the lanes, or returned.
    var phase = RunPhase.idle
    /// Lane workers of ``run()`` that have not ended.
    var activeWorkers = 0
    /// Batches taken by lane workers and not yet finished (sent, retrying or split).
    var batchesOut = 0
    /// `finish` or `cancel` was called: no new events.
    var closing = false
    /// `cancel`'s grace ran out: workers were abandoned.
    var abandoned = false
    @exclusivity(unchecked) var counters = DeliveryStats()
    var stopCauseStorage: StopCause?
    /// Hears each batch that was not delivered on its first attempt (``observeBatches(_:)``).
    var batchObserver: (@Sendable (BatchTrace) -> Void)?
    /// The id of the next traced batch.
    var nextTraceId = 1

    /// The engine's executor: an event loop (the transport's own, when all its connections share
    /// one, so a lane sends, hears the answer and settles its events on one thread), or that of a
    /// default actor of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

    /// Creates an engine; it starts nothing: ``run()`` runs its lanes.
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
    public init(
        configuration: DeliveryConfiguration, transport: any DeliveryTransport,
        clock: any EngineClock = SystemEngineClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "mr.delivery"), eventLoop: (any EventLoop)? = nil,
        onOutcomes: @escaping @Sendable ([EventOutcome]) -> Void
    ) {
        self.init(
            configuration: configuration, sender: .requests(transport), clock: clock, random: random, logger: logger,
            eventLoop: eventLoop, onOutcomes: onOutcomes)
    }

    /// Creates an engine sending through the HTTP transport, which gets each body as the buffer the
    /// engine writes it into. Otherwise as
    /// ``init(configuration:transport:clock:random:logger:eventLoop:onOutcomes:)``: give it
    /// `transport.eventLoop` as `eventLoop` when few calls come from other threads.
    public init(
        configuration: DeliveryConfiguration, transport: LeanHTTPTransport,
        clock: any EngineClock = SystemEngineClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "mr.delivery"), eventLoop: (any EventLoop)? = nil,
        onOutcomes: @escaping @Sendable ([EventOutcome]) -> Void
    ) {
        self.init(
            configuration: configuration, sender: .buffers(transport), clock: clock, random: random, logger: logger,
            eventLoop: eventLoop, onOutcomes: onOutcomes)
    }

    /// Creates an engine handing `transport` its bodies as buffers (tests of transports that do).
    package init(
        configuration: DeliveryConfiguration, bufferTransport transport: any BufferDeliveryTransport,
        clock: any EngineClock = SystemEngineClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "mr.delivery"), eventLoop: (any EventLoop)? = nil,
        onOutcomes: @escaping @Sendable ([EventOutcome]) -> Void
    ) {
        self.init(
            configuration: configuration, sender: .buffers(transport), clock: clock, random: random, logger: logger,
            eventLoop: eventLoop, onOutcomes: onOutcomes)
    }

    private init(
        configuration: DeliveryConfiguration, sender: Sender, clock: any EngineClock, random: any RandomSource,
        logger: Logger, eventLoop: (any EventLoop)?, onOutcomes: @escaping @Sendable ([EventOutcome]) -> Void
    ) {
        self.configuration = configuration
        self.sender = sender
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

    /// Returns once a ``submit(_:)`` call waits for room (at once if one does), for a test that
    /// must act while it waits; returns early when the calling task is cancelled.
    package func waitForASubmitterToWait() async {
        while submitWaiters.isEmpty, !Task.isCancelled {
            let waiting = Wakeup()
            submitterWaits.append(waiting)
            await waiting.wait()
        }
    }

    /// Queues one event; suspends while too many are pending. Returns false (and does NOT report an outcome)
    /// if the engine has stopped, or if the calling task is cancelled while it waits for room, so
    /// the caller keeps the event.
    public func submit(_ event: EncodedEvent) async -> Bool {
        guard await waitForRoom(), stopCauseStorage == nil && !closing else { return false }
        enqueue(event)
        return true
    }

    /// Whether a submit must wait for outcomes first.
    var mustWaitForRoom: Bool {
        stopCauseStorage == nil && !closing && unsettled.count >= configuration.maxPendingEvents
    }

    /// Suspends while too many events are pending (and the engine still takes events). Returns
    /// false when the calling task was cancelled while there was no room.
    func waitForRoom() async -> Bool {
        while mustWaitForRoom {
            if Task.isCancelled { return false }
            let wakeup = Wakeup()
            submitWaiters.append(wakeup)
            submitterWaits.resumeAll()
            wakeReadyLanes()  // a blocked submitter makes partial batches ready
            await wakeup.wait()
            submitWaiters.removeAll { $0 === wakeup }  // when the wait ended by cancellation
        }
        return true
    }

    /// Queues `event` on its lane (the engine takes events and has room).
    func enqueue(_ event: EncodedEvent) {
        let brace = BatchEncoder.closingBrace(of: event.bytes)
        enqueue(
            storage: event.bytes, range: 0..<event.bytes.count, closingBrace: brace, tag: event.tag,
            messageId: event.messageId, lane: laneIndex(for: event))
    }

    /// Queues the event `storage[range]` on lane `index` (the engine takes events and has room).
    /// With `wakeLanes` false the caller wakes the lanes that became ready itself
    /// (``wakeReadyLanes()``), once for many events: nothing else runs on the engine meanwhile.
    func enqueue(
        storage: [UInt8], range: Range<Int>, closingBrace brace: (index: Int, empty: Bool), checkBytes: Bool = false,
        tag: UInt64, messageId: String, lane index: Int, wakeLanes: Bool = true
    ) {
        counters.eventsSubmitted += 1
        let seq = nextSeq
        nextSeq += 1
        unsettled.append(seq, tag: tag, messageId: messageId)
        let pending = Pending(
            seq: seq, storage: storage, range: range, closingBrace: brace, checkBytes: checkBytes,
            size: encoder.sentSize(count: range.count, closingBrace: brace))
        if pending.size > configuration.maxEventBytes {
            settle(
                [pending],
                .gaveUp(
                    reason: .tooLarge,
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
