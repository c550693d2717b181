import Logging

/// Preparing calls into events and pumping them into the engine in order.
extension MetaRouterClient {
    /// Whether a call is taken; otherwise it is counted and logged as dropped.
    func accepting(_ call: String) -> Bool {
        let open = phase == .ready || phase == .running
        if open, ledger.fatalStatus == nil { return true }
        counters.droppedDisabled += 1
        let why = !open ? "the client is shut down" : "the client is disabled (status \(ledger.fatalStatus ?? 0))"
        if counters.droppedDisabled == 1 {
            logger.warning("call dropped: \(why)", metadata: ["call": "\(call)"])
        } else {
            logger.debug("call dropped: \(why)", metadata: ["call": "\(call)"])
        }
        return false
    }

    /// Runs an identity change, logging a storage failure.
    func persist(_ change: @Sendable (PersistedIdentity) async throws -> Void) async {
        do { try await change(identity) } catch {
            logger.error("cannot persist the identity", metadata: ["error": "\(error)"])
        }
    }

    /// Whether the privacy gate takes a call; a call dropped by consent is counted and logged.
    func admitted(_ call: String) -> Bool {
        guard gate.admit() == .drop else { return true }
        counters.droppedByConsent += 1
        if counters.droppedByConsent == 1 {
            logger.info("call dropped: data usage is revoked under GDPR", metadata: ["call": "\(call)"])
        }
        return false
    }

    /// Prepares `event` with the current identity, context and privacy members and queues it.
    func enqueue(_ event: Event) async {
        guard accepting(event.type.rawValue), admitted(event.type.rawValue) else { return }
        let record = await identity.record
        // Shutdown or a consent change may have come while the identity was read.
        guard accepting(event.type.rawValue), admitted(event.type.rawValue) else { return }
        var current = record.identity
        let adAllowed = gate.forwardsAdvertisingId
        if !adAllowed { current.advertisingId = nil }
        var prepared = EventPreparation.prepare(event, identity: current, context: options.context, now: clock.wallClock)
        EventPrivacy.decorate(&prepared, consent: gate.consent, traits: record.traits, advertisingIdAllowed: adAllowed)
        if gate.admit() == .hold(.waitingForTracking) { counters.heldForTracking += 1 }
        append(prepared)
    }

    /// Queues a prepared event. Over `maxQueueEvents`, held events move to the overflow file;
    /// otherwise the oldest is dropped.
    func append(_ event: Event) {
        buffer.append((nextTag, event))
        nextTag += 1
        if buffer.count > options.maxQueueEvents, !spillHeld() {
            let dropped = buffer.removeFirst()
            counters.droppedQueueFull += 1
            logger.warning(
                "queue full: oldest event dropped",
                metadata: ["messageId": "\(dropped.event.messageId ?? "")", "maxQueueEvents": "\(options.maxQueueEvents)"])
        }
        wakePump()
    }

    /// Whether the pump waits to be woken (it went through the queue, or it is held back).
    var pumpIsParked: Bool { pumpWakeup != nil }

    func wakePump() {
        pumpWakeup?.resume()
        pumpWakeup = nil
    }

    /// Hands queued events (read-back overflow first) to the engine one by one, in order, while
    /// the privacy gate lets them go, until shutdown empties the queue or the engine stops. Held
    /// events stay for the snapshot. Runs inside ``run()``.
    func runPump() async {
        defer {
            pumpEnded = true
            resumeIdleWaiters()
        }
        while true {
            guard gate.sends, let item = released.popFirst() ?? buffer.popFirst() else {
                resumeIdleWaiters()
                if phase != .running { return }
                let wakeup = Wakeup()
                pumpWakeup = wakeup
                stateMoved()
                await wakeup.wait()
                // Cancelled: the pump ends; what is queued stays for the snapshot, as at shutdown.
                if Task.isCancelled {
                    pumpWakeup = nil
                    return
                }
                continue
            }
            let encoded: EncodedEvent
            do {
                encoded = try EncodedEvent(validating: item.event.encoded, tag: item.tag)
            } catch {
                counters.droppedUnencodable += 1
                logger.error("event dropped: it cannot be encoded", metadata: ["error": "\(error)"])
                continue
            }
            ledger.add(item.tag, item.event)
            pumpBusy = true
            let accepted = await engine.submit(encoded)
            pumpBusy = false
            if !accepted {
                // The engine stopped: keep the event (and everything after it) for the snapshot.
                ledger.remove(item.tag)
                released.prepend(item)
                let cause = await engine.stopCause.map { "\($0)" } ?? "closing"
                logger.warning("delivery stopped; later events are kept for the disk queue", metadata: ["cause": "\(cause)"])
                return
            }
            // Data usage was revoked while the event entered the engine: take it back too.
            if !gate.collects { await withdrawFromEngine() }
        }
    }

    /// Returns once the queue is empty and the pump is not submitting (or the pump has ended).
    func pumpIdle() async {
        if pumpEnded || (buffer.isEmpty && released.isEmpty && !pumpBusy) { return }
        let idle = Wakeup()
        idleWaiters.append(idle)
        await idle.wait()
    }

    func resumeIdleWaiters() {
        idleWaiters.resumeAll()
    }
}
