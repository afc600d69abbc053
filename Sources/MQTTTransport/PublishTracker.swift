/// Bookkeeping of outstanding publishes: a bounded number of slots, the waiters for a slot,
/// and the publishes libmosquitto has accepted but not yet confirmed.
///
/// libmosquitto's outgoing queue is unbounded and confirms a publish through `on_publish`
/// (written for QoS 0, PUBACK for QoS 1, PUBCOMP for QoS 2). This state machine is what bounds
/// memory and turns those confirmations into completed Swift calls. It holds no lock: the
/// client mutates it under its own. Continuations are returned, never resumed here, so that
/// the caller resumes them after releasing the lock.
struct PublishTracker {
    typealias Completion = CheckedContinuation<Void, any Error>

    /// A publish libmosquitto accepted and has not confirmed yet.
    struct Pending {
        var qos: MQTTQoS
        /// Nil for fire-and-count sends; set for `publish` calls awaiting the acknowledgement.
        var completion: Completion?
        /// Told the outcome once it is known (acknowledged, rejected or abandoned).
        var onComplete: MQTTClient.CompletionHandler? = nil
    }

    /// Counters for metrics.
    struct Counters: Sendable, Equatable {
        var acknowledged: UInt64 = 0
        var failed: UInt64 = 0
        var waitedForSlot: UInt64 = 0
    }

    let capacity: Int
    /// Free slots needed before a waiter is woken: one acknowledgement per wake-up would cost a
    /// thread wake-up per message (a quarter of the publisher's CPU at 20,000 messages/s);
    /// a woken task then takes the free slots without waiting. An eighth of the capacity (at most
    /// 64) keeps the rest in flight meanwhile.
    let wakeThreshold: Int
    private(set) var slotsInUse = 0
    private var slotWaiters: [(id: UInt64, continuation: Completion)] = []
    private var nextWaiterID: UInt64 = 0
    private(set) var pending: [Int32: Pending] = [:]
    private var drainWaiters: [(id: UInt64, continuation: Completion)] = []
    private(set) var counters = Counters()

    init(capacity: Int) {
        precondition(capacity > 0, "the in-flight capacity must be positive")
        self.capacity = capacity
        wakeThreshold = max(1, min(64, capacity / 8))
    }

    /// Number of tasks waiting for a slot.
    var waitingForSlot: Int { slotWaiters.count }

    /// Takes a slot if one is free.
    mutating func tryAcquireSlot() -> Bool {
        guard slotsInUse < capacity else { return false }
        slotsInUse += 1
        return true
    }

    /// Queues a waiter for a slot; returns its id for cancellation.
    mutating func enqueueSlotWaiter(_ continuation: Completion) -> UInt64 {
        nextWaiterID += 1
        counters.waitedForSlot += 1
        slotWaiters.append((nextWaiterID, continuation))
        return nextWaiterID
    }

    /// Removes a cancelled waiter; returns its continuation if it was still waiting.
    mutating func removeSlotWaiter(_ id: UInt64) -> Completion? {
        guard let index = slotWaiters.firstIndex(where: { $0.id == id }) else { return nil }
        return slotWaiters.remove(at: index).continuation
    }

    /// Gives a slot back. If a task waits and ``wakeThreshold`` slots are free, one passes to
    /// it: resume the returned continuation (after unlocking).
    mutating func releaseSlot() -> Completion? {
        slotsInUse -= 1
        guard !slotWaiters.isEmpty, capacity - slotsInUse >= wakeThreshold else { return nil }
        slotsInUse += 1
        return slotWaiters.removeFirst().continuation
    }

    /// Records a publish libmosquitto accepted under message id `mid`.
    mutating func register(mid: Int32, qos: MQTTQoS, completion: Completion?, onComplete: MQTTClient.CompletionHandler? = nil) {
        pending[mid] = Pending(qos: qos, completion: completion, onComplete: onComplete)
    }

    /// Resolves the publish `mid`. Returns what to resume after unlocking, or nil for an id we
    /// do not track (libmosquitto never reports those, but a stale id must not crash us).
    mutating func complete(mid: Int32, succeeded: Bool) -> (pending: Pending, slotHandoff: Completion?, drained: [Completion])? {
        guard let entry = pending.removeValue(forKey: mid) else { return nil }
        if succeeded { counters.acknowledged += 1 } else { counters.failed += 1 }
        let handoff = releaseSlot()
        return (entry, handoff, takeDrainWaitersIfIdle())
    }

    /// Fails every pending publish matching `predicate` (QoS 0 on a lost connection, everything
    /// at shutdown). Returns the completions to fail, the outcome handlers to tell (abandoned)
    /// and the slot hand-offs to resume.
    mutating func failAll(where predicate: (Pending) -> Bool) -> (
        failed: [Completion], abandoned: [MQTTClient.CompletionHandler], handoffs: [Completion], drained: [Completion]
    ) {
        var failed: [Completion] = []
        var abandoned: [MQTTClient.CompletionHandler] = []
        var handoffs: [Completion] = []
        for (mid, entry) in pending where predicate(entry) {
            pending.removeValue(forKey: mid)
            counters.failed += 1
            if let completion = entry.completion { failed.append(completion) }
            if let onComplete = entry.onComplete { abandoned.append(onComplete) }
            if let handoff = releaseSlot() { handoffs.append(handoff) }
        }
        return (failed, abandoned, handoffs, takeDrainWaitersIfIdle())
    }

    /// Removes every slot waiter (shutdown).
    mutating func takeAllSlotWaiters() -> [Completion] {
        defer { slotWaiters.removeAll() }
        return slotWaiters.map(\.continuation)
    }

    /// Registers a waiter for "no publish outstanding"; returns its id, or nil if already idle.
    mutating func addDrainWaiter(_ continuation: Completion) -> UInt64? {
        guard !pending.isEmpty || slotsInUse > 0 else { return nil }
        nextWaiterID += 1
        drainWaiters.append((nextWaiterID, continuation))
        return nextWaiterID
    }

    /// Removes a drain waiter that gave up (its deadline passed); returns it if still waiting.
    mutating func removeDrainWaiter(_ id: UInt64) -> Completion? {
        guard let index = drainWaiters.firstIndex(where: { $0.id == id }) else { return nil }
        return drainWaiters.remove(at: index).continuation
    }

    private mutating func takeDrainWaitersIfIdle() -> [Completion] {
        guard pending.isEmpty, slotsInUse == 0, !drainWaiters.isEmpty else { return [] }
        defer { drainWaiters.removeAll() }
        return drainWaiters.map(\.continuation)
    }

    /// Called when a slot was taken but the publish never reached libmosquitto.
    mutating func abandonSlot() -> (handoff: Completion?, drained: [Completion]) {
        counters.failed += 1
        let handoff = releaseSlot()
        return (handoff, takeDrainWaitersIfIdle())
    }
}
