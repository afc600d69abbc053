import TelemetryCore

/// Who owns the fleet now, and who will after a warm-up: the ownership partitioned mode applies,
/// as a pure value (time arrives as arguments: this instance's monotonic clock, in seconds).
///
/// - An instance that is gone (its will, its expiry or its `offline`) leaves ``current`` at
///   once: nobody else holds its devices' state, so there is nothing to wait for.
/// - An instance that joins, or one that drains before leaving, changes the plan only a warm-up
///   after this instance learnt of it (`now + warmup` on its own monotonic clock; no instant is
///   compared across machines). Until then the devices' next owner processes their frames
///   without publishing (a shadow). When its warm-up is over the next owner claims each device
///   in the shared store, and the previous owner keeps publishing for a device it still
///   processes until that claim is notified to it (``OwnershipGate``): the switch is the
///   store's claim, not an instant.
struct OwnershipPlan: Sendable {
    /// The ownership in force: its owners publish.
    private(set) var current = RendezvousOwnership(instances: [String]())
    /// The ownership after the warm-up, and when this instance applies it (monotonic seconds).
    private(set) var next: (ownership: RendezvousOwnership, at: Double)?
    /// Grows with every change (the router notices changes by it).
    private(set) var version = 0
    /// Seconds a joining or draining change waits.
    let warmup: Double

    init(warmup: Double) { self.warmup = warmup }

    /// Applies a membership change.
    /// - Parameters:
    ///   - live: instances that still process (online or draining), this one included when it does.
    ///   - target: instances that should own devices (online).
    ///   - now: when this instance learnt of the change (monotonic seconds): the warm-up counts
    ///     from it.
    /// - Returns: whether anything changed.
    @discardableResult
    mutating func update(live: Set<String>, target: Set<String>, at now: Double) -> Bool {
        var changed = false
        var instances = Set(current.instances).intersection(live)
        if instances.isEmpty { instances = target }
        if instances != Set(current.instances) {
            current = RendezvousOwnership(instances: instances)
            changed = true
        }
        if target == instances {
            if next != nil {
                next = nil
                changed = true
            }
        } else if next.map({ Set($0.ownership.instances) != target }) ?? true {
            next = (RendezvousOwnership(instances: target), now + warmup)
            changed = true
        }
        if changed { version += 1 }
        return changed
    }

    /// Switches to ``next`` once its time has come; returns whether it did.
    @discardableResult
    mutating func advance(to now: Double) -> Bool {
        guard let pending = next, now >= pending.at else { return false }
        current = pending.ownership
        next = nil
        version += 1
        return true
    }

    /// What `instance` does with the device `key`.
    func role(of instance: String, for key: some StringProtocol) -> Role {
        if current.owns(instance, key) { return .owner }
        if let next, next.ownership.owns(instance, key) { return .shadow }
        return .none
    }

    /// Whether the pending change moves the device `key` from `instance` to another instance
    /// (its next owner is warming up: it receives the device's frames too).
    func isMovingAway(_ key: some StringProtocol, from instance: String) -> Bool {
        guard let next, current.owns(instance, key) else { return false }
        return !next.ownership.owns(instance, key)
    }

    /// An instance's part in a device's processing.
    enum Role: Sendable, Equatable {
        /// Processes and publishes.
        case owner
        /// Processes without publishing (the next owner warming up).
        case shadow
        /// Drops its frames.
        case none
    }
}
