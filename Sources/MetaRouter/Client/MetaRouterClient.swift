import DequeModule
import JSONCore
import Logging
import Synchronization

/// A MetaRouter/Segment client for Swift server apps, like the SDK's `Analytics`: it enriches
/// calls with the persisted identity and context, queues them, flushes every `flushInterval`
/// and delivers them through a ``DeliveryEngine``. See `docs/server-usage.md`.
///
/// - A fatal answer (401, 403, 404) disables the client: later calls are dropped and logged.
/// - ``shutdown()`` delivers what it can within `shutdownTimeout` and writes the rest to the
///   disk queue (when `diskQueuePath` is set); the next client sends them again.
public actor MetaRouterClient {
    enum Phase { case running, shuttingDown, shutDown }

    let options: ClientOptions
    let engine: DeliveryEngine
    let ownedTransport: HTTPDeliveryTransport?
    let identity: PersistedIdentity
    let ledger: OutcomeLedger
    let clock: any EngineClock
    let logger: Logger
    let diskQueue: DiskQueue?
    let tasks: ClientTasks

    /// Prepared events not yet handed to the engine, oldest first.
    var buffer = Deque<(tag: UInt64, event: Event)>()
    var nextTag: UInt64 = 0
    var phase = Phase.running
    /// The pump is inside `engine.submit`.
    var pumpBusy = false
    /// The pump has ended (shutdown, or the engine stopped).
    var pumpEnded = false
    var pumpWakeup: CheckedContinuation<Void, Never>?
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var counters = ClientStats()
    /// A snapshot that could not be read nor moved aside is in place: never remove or overwrite it.
    var protectSnapshot = false

    /// Creates a client and starts its flush timer.
    /// - Parameters:
    ///   - options: endpoint, write key and the other settings; validated here.
    ///   - transport: how requests are sent; `nil` uses an ``HTTPDeliveryTransport`` owned (and shut down) by the client.
    ///   - clock: time for the flush timer, the shutdown limit and the engine (tests inject one).
    ///   - logger: where the client and the engine log.
    /// - Throws: ``DeliveryConfigurationError`` for a bad setting, or a storage error when the identity cannot be persisted.
    public init(options: ClientOptions, transport: (any DeliveryTransport)? = nil,
                clock: any EngineClock = SystemEngineClock(), logger: Logger = Logger(label: "mr.client")) throws {
        try options.validate()
        let ledger = OutcomeLedger(logger: logger)
        let owned = transport == nil ? HTTPDeliveryTransport(maxConnectionsPerHost: options.delivery.concurrency) : nil
        self.options = options
        self.ledger = ledger
        self.clock = clock
        self.logger = logger
        self.ownedTransport = owned
        self.identity = try PersistedIdentity(storage: options.identityStorage.open())
        self.engine = DeliveryEngine(configuration: options.delivery, transport: transport ?? owned!, clock: clock,
                                     logger: logger, onOutcomes: { ledger.record($0) })
        self.diskQueue = options.diskQueuePath.map { DiskQueue(path: $0, maxAge: options.diskQueueMaxAge) }
        let tasks = ClientTasks()
        self.tasks = tasks
        if let diskQueue {
            let (events, stats, protect) = Self.rehydrate(diskQueue, now: clock.wallClock, cap: options.maxQueueEvents, logger: logger)
            protectSnapshot = protect
            for e in events {
                buffer.append((nextTag, e))
                nextTag += 1
            }
            counters.rehydrated = stats.rehydrated
            counters.droppedQueueFull = stats.droppedQueueFull
            counters.snapshotCorrupt = stats.snapshotCorrupt
            counters.snapshotExpired = stats.snapshotExpired
            counters.snapshotsSetAside = stats.snapshotsSetAside
        }
        tasks.start(pump: Task { await self.runPump() }, timer: Self.timer(clock: clock, every: options.flushInterval) {
            [weak self] in await self?.timerFired() ?? false
        })
    }

    /// The anonymous id attached to events (a lowercase UUID, persisted in the identity storage).
    public var anonymousId: String {
        get async { await identity.identity.anonymousId }
    }

    /// The identity attached to events now.
    public var currentIdentity: Identity {
        get async { await identity.identity }
    }

    /// Counters so far.
    public var stats: ClientStats {
        var s = ledger.stats
        s.queued = buffer.count
        s.droppedQueueFull = counters.droppedQueueFull
        s.droppedDisabled = counters.droppedDisabled
        s.rehydrated = counters.rehydrated
        s.snapshotCorrupt = counters.snapshotCorrupt
        s.snapshotExpired = counters.snapshotExpired
        s.snapshotsSetAside = counters.snapshotsSetAside
        s.droppedUnencodable = counters.droppedUnencodable
        return s
    }

    /// The status (401, 403 or 404) that disabled the client, if one did.
    public var disabledBy: Int? { ledger.fatalStatus }

    /// Tracks an action.
    public func track(_ event: String, properties: JSONObject? = nil) async {
        await enqueue(.track(event, properties: properties))
    }

    /// Identifies the user: persists `userId` and sends an identify event.
    public func identify(_ userId: String, traits: JSONObject? = nil) async {
        guard accepting("identify") else { return }
        await persist { try await $0.identify(userId: userId) }
        await enqueue(.identify(userId, traits: traits))
    }

    /// Associates the user with a group: persists `groupId` and sends a group event.
    public func group(_ groupId: String, traits: JSONObject? = nil) async {
        guard accepting("group") else { return }
        await persist { try await $0.group(groupId: groupId) }
        await enqueue(.group(groupId, traits: traits))
    }

    /// Records a screen view.
    public func screen(_ name: String, properties: JSONObject? = nil) async {
        await enqueue(.screen(name, properties: properties))
    }

    /// Records a page view.
    public func page(_ name: String, properties: JSONObject? = nil) async {
        await enqueue(.page(name, properties: properties))
    }

    /// Links the current user (or anonymous id) to `newUserId`, which becomes the userId.
    public func alias(_ newUserId: String) async {
        guard accepting("alias") else { return }
        await enqueue(.alias(newUserId))
        await persist { try await $0.identify(userId: newUserId) }
    }

    /// Sends any fully prepared event (its missing identity, messageId, timestamp and context are filled in).
    public func send(_ event: Event) async {
        await enqueue(event)
    }

    /// Sets the advertising id added as `context.device.advertisingId`. An invalid or all-zero
    /// id is refused (the stored one is cleared) and `false` is returned.
    @discardableResult
    public func setAdvertisingId(_ id: String?) async -> Bool {
        do { return try await identity.setAdvertisingId(id) } catch {
            logger.error("cannot persist the advertising id", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Clears the advertising id from storage and from later events.
    public func clearAdvertisingId() async {
        await setAdvertisingId(nil)
    }

    /// Clears userId, groupId and advertisingId and makes a new anonymousId. Queued events keep
    /// the identity they were made with and are still delivered.
    public func reset() async {
        await persist { try await $0.reset() }
    }

    /// Hands queued events to the engine and asks it to send partial batches now.
    /// Returns without waiting for the endpoint's answers (see ``drain()``).
    public func flush() async {
        guard phase == .running else { return }
        await pumpIdle()
        await engine.flush()
    }

    /// Flushes and waits until every event handed to the client so far has an outcome
    /// (delivered, given up, or not delivered because the engine stopped). While the endpoint
    /// fails, this waits through the retries.
    public func drain() async {
        guard phase == .running else { return }
        await flush()
        await ledger.waitUntilSettled()
    }
}
