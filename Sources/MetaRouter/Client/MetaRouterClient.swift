import DequeModule
import JSONCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A MetaRouter/Segment client for Swift server apps, like the SDK's `Analytics`: it enriches
/// calls with the persisted identity and context, queues them, flushes every `flushInterval`
/// and delivers them through a ``DeliveryEngine``. See `docs/server-usage.md`.
///
/// It is a swift-service-lifecycle `Service`: creating it starts nothing; ``run()`` runs the
/// engine, hands it queued events and runs the flush timer until a graceful shutdown, the
/// cancellation of its task or ``shutdown()``, then delivers what it can within
/// `shutdownTimeout` (at once stopping instead after a cancellation) and writes the rest to the
/// disk queue. Calls made before ``run()`` are queued and sent once it runs.
///
/// - A fatal answer (401, 403, 404) disables the client: later calls are dropped and logged.
/// - With `autoStart: false`, ``run()`` runs but nothing is sent and no connection is opened
///   until ``start()``; ``setConsent(_:)`` and ``setTrackingAuthorization(_:)`` gate sending too.
/// - Without a service group, start ``run()`` in a task and call ``shutdown()`` at exit.
public actor MetaRouterClient: Service {
    enum Phase {
        /// Created: calls are queued; nothing runs yet.
        case ready
        /// ``run()`` is running.
        case running
        /// The end of ``run()``: delivering within `shutdownTimeout`, then the snapshot.
        case shuttingDown
        /// ``run()`` returned; later calls are dropped.
        case shutDown
    }

    let options: ClientOptions
    let engine: DeliveryEngine
    let ownedTransport: OwnedHTTPTransport?
    let identity: PersistedIdentity
    let ledger: OutcomeLedger
    let clock: any EngineClock
    let logger: Logger
    let diskQueue: DiskQueue?
    let stopSignal = StopSignal()

    /// Prepared events not yet handed to the engine, oldest first.
    var buffer = Deque<(tag: UInt64, event: Event)>()
    /// Held events read back from the hold overflow file: older than ``buffer``, sent first.
    var released = Deque<(tag: UInt64, event: Event)>()
    /// The tags of the held events in the hold overflow file, in file order.
    var spilledTags = Deque<UInt64>()
    /// The hold overflow file (`nil` without `diskQueuePath` or with `maxDiskEvents` 0).
    let overflow: DiskQueue?
    /// Consent, ATT and `autoStart`: what happens to calls, and whether the pump may send.
    var gate: PrivacyGate
    /// The first tag of an event made by a call (lower tags were rehydrated from disk).
    var firstCallTag: UInt64 = 0
    var nextTag: UInt64 = 0
    var phase = Phase.ready
    /// The pump is inside `engine.submit`.
    var pumpBusy = false
    /// The pump has ended (shutdown, or the engine stopped).
    var pumpEnded = false
    /// Set while the pump waits to be woken. Every wait of the client ends early when its task
    /// is cancelled (``Wakeup``), so a cancelled caller never stays parked.
    var pumpWakeup: Wakeup?
    /// Callers waiting for the pump to be idle (``pumpIdle()``).
    var idleWaiters: [Wakeup] = []
    /// Callers of ``drain()`` waiting for ``run()`` to start (resumed at start and at the end).
    var startWaiters: [Wakeup] = []
    /// Callers of ``shutdown()`` waiting for ``run()`` to return.
    var shutdownWaiters: [Wakeup] = []
    /// Waits for the client's state to move (``waitForPumpToPark()`` and the like).
    var stateWaiters: [Wakeup] = []
    /// When the engine's time to deliver is up, once shutting down began (``beginShutdown()``).
    var shutdownDeadline: Duration?
    var counters = ClientStats()
    /// What ``run()`` does with the snapshot file the initializer read.
    var snapshotDisposal = SnapshotDisposal.none
    /// A snapshot that could not be read nor moved aside is in place: never remove or overwrite it.
    var protectSnapshot = false

    /// Creates a client: validates the options, opens the identity and reads the disk-queue
    /// snapshot (its events are queued first). It starts no task and sends nothing: call ``run()``.
    /// - Parameters:
    ///   - options: endpoint, write key and the other settings; validated here.
    ///   - transport: how requests are sent; `nil` uses a ``LeanHTTPTransport`` with the options'
    ///     TLS and proxy settings, on `eventLoopGroup`, made on the first request and shut down at the
    ///     end of ``run()``.
    ///   - eventLoopGroup: the group for that owned transport; nil (the default) uses
    ///     `MultiThreadedEventLoopGroup.singleton`, first touched when the first request is sent.
    ///   - clock: time for the flush timer, the shutdown limit and the engine (tests inject one).
    ///   - logger: where the client and the engine log.
    /// - Throws: ``DeliveryConfigurationError`` for a bad setting, or a storage error when the identity cannot be persisted.
    public init(
        options: ClientOptions, transport: (any DeliveryTransport)? = nil,
        eventLoopGroup: (any EventLoopGroup)? = nil,
        clock: any EngineClock = SystemEngineClock(), logger: Logger = Logger(label: "mr.client")
    ) throws {
        try options.validate()
        let ledger = OutcomeLedger(logger: logger)
        let owned =
            transport == nil
            ? OwnedHTTPTransport(
                eventLoopGroup: eventLoopGroup,
                maxConnectionsPerHost: options.delivery.concurrency, security: options.security) : nil
        self.options = options
        self.ledger = ledger
        self.clock = clock
        self.logger = logger
        self.ownedTransport = owned
        self.identity = try PersistedIdentity(storage: options.identityStorage.open())
        self.engine = DeliveryEngine(
            configuration: options.delivery, transport: transport ?? owned!, clock: clock,
            logger: logger, onOutcomes: { ledger.record($0) })
        self.diskQueue = options.diskQueuePath.map { DiskQueue(path: $0, maxAge: options.diskQueueMaxAge) }
        self.overflow =
            options.maxDiskEvents > 0
            ? options.diskQueuePath.map { DiskQueue(path: DiskQueue.overflowPath(forQueue: $0), maxAge: nil) } : nil
        var gate = PrivacyGate(autoStart: options.autoStart, waitForTracking: options.waitForTrackingAuthorization)
        if let consent = options.consent { _ = gate.setConsent(consent) }
        if let status = options.trackingAuthorization { _ = gate.setTracking(status) }
        self.gate = gate
        if let overflow, let left = Self.leftoverOverflowCount(overflow, logger: logger) {
            // A hold overflow file left by a run that ended abruptly: its events are the oldest.
            spilledTags = Deque(0..<UInt64(left))
            nextTag = UInt64(left)
        }
        if let diskQueue {
            let loaded = Self.loadSnapshot(diskQueue, now: clock.wallClock, cap: options.maxQueueEvents, logger: logger)
            snapshotDisposal = loaded.disposal
            protectSnapshot = loaded.disposal == .protect
            for e in loaded.events {
                buffer.append((nextTag, e))
                nextTag += 1
            }
            counters.rehydrated = loaded.stats.rehydrated
            counters.droppedQueueFull = loaded.stats.droppedQueueFull
            counters.snapshotCorrupt = loaded.stats.snapshotCorrupt
            counters.snapshotExpired = loaded.stats.snapshotExpired
        }
        firstCallTag = nextTag
    }

    /// The anonymous id attached to events (a lowercase UUID, persisted in the identity storage).
    public var anonymousId: String {
        get async { await identity.identity.anonymousId }
    }

    /// The identity attached to events now.
    public var currentIdentity: Identity {
        get async { await identity.identity }
    }

    /// The current user's traits (from ``login(_:)`` and ``modify(_:removing:)``), sent as
    /// `context.traits`; nil when there are none.
    public var currentTraits: JSONObject? {
        get async { await identity.record.traits }
    }

    /// Counters so far.
    public var stats: ClientStats {
        var s = ledger.stats
        s.queued = buffer.count + released.count
        s.queuedOnDisk = spilledTags.count
        s.droppedByConsent = counters.droppedByConsent
        s.purgedByConsent = counters.purgedByConsent
        s.heldForTracking = counters.heldForTracking
        s.spilledToDisk = counters.spilledToDisk
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
        await persist { try await $0.identify(userId: newUserId, sameUser: true) }
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

    /// Clears userId, groupId, traits and advertisingId and makes a new anonymousId. Queued events keep
    /// the identity they were made with and are still delivered.
    public func reset() async {
        await persist { try await $0.reset() }
    }

    /// Hands queued events to the engine and asks it to send partial batches now.
    /// Returns without waiting for the endpoint's answers (see ``drain()``). Does nothing unless
    /// ``run()`` is running and events may be sent (started, not waiting for ATT, consent given).
    public func flush() async {
        guard phase == .running, gate.sends else { return }
        await pumpIdle()
        await engine.flush()
    }

    /// Flushes and waits until every event handed to the client so far has an outcome
    /// (delivered, given up, or not delivered because the engine stopped). While the endpoint
    /// fails, this waits through the retries. Called before ``run()`` starts, it first waits
    /// for it; after the client shut down, it returns at once. Held events (not started, or
    /// waiting for ATT) are not waited for. A caller whose task is cancelled returns at once.
    public func drain() async {
        if phase == .ready {
            let started = Wakeup()
            startWaiters.append(started)
            stateMoved()
            await started.wait()
        }
        guard phase == .running else { return }
        await flush()
        await ledger.waitUntilSettled()
    }
}
