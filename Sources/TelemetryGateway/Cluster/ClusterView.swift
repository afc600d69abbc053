import CoreMetrics
import Locking
import MQTTTransport
import TelemetryCore

/// The membership as this instance sees it, shared between the membership service (which
/// feeds announcements in) and the subscriber's router (which asks who owns a device).
///
/// It keeps the ``MembershipTable`` and the ``OwnershipPlan`` made from it; the router compares
/// plan versions to notice changes without recomputing anything per frame. Every time it is
/// given is this instance's monotonic clock in seconds (``ClusterRuntime/now()``): arrival
/// times, never the dates other instances wrote in their announcements, so no wall clock,
/// this machine's or another's, moves a switch or an expiry.
final class ClusterView: Sendable {
    /// This instance's name.
    let me: String

    private struct State {
        var table: MembershipTable
        var plan: OwnershipPlan
        /// Whether this instance may count itself live (its own echoes), checked at every frame.
        var liveness: SelfLiveness
        /// Whether the retained announcements were all read (the subscriber may start).
        var known = false
        var waiters: [CheckedContinuation<Bool, Never>] = []
        /// Set when the subscriber subscribed (this instance may announce itself online).
        var inboundReady = false
        var inboundWaiters: [CheckedContinuation<Bool, Never>] = []
        var abandoned = false
    }

    private let state: LockedState<State>
    private let metrics: ClusterMetrics
    /// Told every plan change, outside the lock (partitioned mode's per-device subscriptions).
    private let observer = LockedState<(@Sendable (OwnershipPlan) -> Void)?>(nil)

    /// Whether a lapse of this instance's own echoes takes its devices away (off only for the
    /// control run of the frozen-instance test, `WG_FAULT_SELF_EXPIRY_OFF=1`).
    private let checksSelf: Bool

    init(me: String, expiry: Double, warmup: Double, metrics: ClusterMetrics, checksSelf: Bool = true) {
        self.me = me
        self.metrics = metrics
        self.checksSelf = checksSelf
        state = LockedState(State(table: MembershipTable(me: me, expiry: expiry), plan: OwnershipPlan(warmup: warmup), liveness: SelfLiveness(expiry: expiry)))
    }

    /// The plan at `now` (a frame's arrival, monotonic seconds): switched to its next ownership if `now` has
    /// reached it, and without this instance if it was not live at `now` (``SelfLiveness``).
    func plan(at now: Double) -> OwnershipPlan {
        let (plan, switched, lapsed) = state.withLock { state in
            let lapsed = checksSelf && state.liveness.check(at: now) && Self.dropSelf(&state, at: now)
            let switched = state.plan.advance(to: now)
            return (state.plan, switched, lapsed)
        }
        if lapsed { metrics.lapses.increment() }
        if switched || lapsed { recordChange(plan) }
        return plan
    }

    /// The plan as last applied, without advancing it or judging this instance's liveness: for
    /// a thread that must not apply a plan change itself (a worker, whose applying would run
    /// the change's observer, and its routing, on the worker).
    var appliedPlan: OwnershipPlan { state.withLock { $0.plan } }

    /// Whether this instance found itself expired and has not joined again yet.
    var lapsed: Bool { state.withLock { $0.liveness.lapsed } }

    /// Whether this instance processes devices: online or draining, and not lapsed.
    var processes: Bool { state.withLock { $0.table.selfPhase != .idle && !$0.liveness.lapsed } }

    /// One of this instance's own announcements came back at `now` (on the membership
    /// connection's thread, as it is read).
    func echoed(at now: Double) {
        lapse(at: now) { $0.echo(at: now) }
    }

    /// The broker published this instance's will: the others dropped it.
    func willFired(at now: Double) {
        lapse(at: now) { $0.lapse() }
    }

    private func lapse(at now: Double, _ find: (inout SelfLiveness) -> Bool) {
        let plan: OwnershipPlan? = state.withLock { state in
            checksSelf && find(&state.liveness) && Self.dropSelf(&state, at: now) ? state.plan : nil
        }
        if let plan {
            metrics.lapses.increment()
            recordChange(plan)
        }
    }

    /// After a lapse: this instance owns nothing until it joins again (``setSelf(_:at:)``
    /// with `online`, which starts a warm-up like a newcomer's).
    private static func dropSelf(_ state: inout State, at now: Double) -> Bool {
        state.table.setSelf(.idle)
        state.plan.update(live: state.table.live(at: now), target: state.table.target(at: now), at: now)
        return true
    }

    /// The instances whose ownership is in force.
    var owners: [String] { state.withLock { $0.plan.current.instances } }

    /// Records another instance's announcement, read at `now`; returns the plan when it changed.
    /// A change it makes waits the warm-up from `now` (the date the announcement carries is for
    /// people, not an input).
    @discardableResult
    func announce(_ instance: String, _ phase: MembershipTable.Phase, at now: Double) -> OwnershipPlan? {
        update(at: now, expiringFirst: true) { $0.announce(instance, phase, at: now) }
    }

    /// Sets this instance's own phase (its announcement came back at `now`, from when its
    /// liveness counts); returns the plan when it changed.
    @discardableResult
    func setSelf(_ phase: MembershipTable.Phase, at now: Double) -> OwnershipPlan? {
        state.withLock { state in
            if phase == .idle { state.liveness.stop() } else { state.liveness.begin(at: now) }
        }
        return update(at: now) { $0.setSelf(phase) }
    }

    /// Takes the instances announced so far as settled (their ownership in force, no warm-up):
    /// what a starting instance finds is what the others already applied.
    func settle(at now: Double) {
        let plan = state.withLock { state in
            state.plan.update(live: state.table.live(at: now), target: state.table.target(at: now), at: -.infinity)
            state.plan.advance(to: now)
            return state.plan
        }
        recordChange(plan)
    }

    /// Re-evaluates expiry and the warm-up at `now`; returns the plan when it changed.
    @discardableResult
    func expire(at now: Double) -> OwnershipPlan? {
        update(at: now) { $0.prune(at: now) }
    }

    /// - Parameter expiringFirst: apply expiry at `now` before the change: an instance silent for
    ///   `cluster.expiry` (frozen) that announces itself again joins anew, with a warm-up, whether
    ///   or not a heartbeat tick expired it in between; it judges itself the same way (``SelfLiveness``).
    private func update(at now: Double, expiringFirst: Bool = false, _ change: (inout MembershipTable) -> Void) -> OwnershipPlan? {
        let changed: OwnershipPlan? = state.withLock { state in
            let expired = expiringFirst && state.plan.update(live: state.table.live(at: now), target: state.table.target(at: now), at: now)
            change(&state.table)
            let updated = state.plan.update(live: state.table.live(at: now), target: state.table.target(at: now), at: now)
            let switched = state.plan.advance(to: now)
            return updated || switched || expired ? state.plan : nil
        }
        if let changed { recordChange(changed) }
        return changed
    }

    private func recordChange(_ plan: OwnershipPlan) {
        metrics.membershipChanges.increment()
        metrics.liveInstances.record(plan.current.instances.count)
        observer.withLock { $0 }?(plan)
    }

    /// Sets what is told every plan change (on the thread that noticed it, outside the lock).
    func observe(_ handler: @escaping @Sendable (OwnershipPlan) -> Void) {
        observer.withLock { $0 = handler }
    }

    // MARK: Start-up order

    /// Marks the retained announcements as read: the subscriber may start.
    func markKnown() {
        let waiters = state.withLock { state in
            state.known = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    /// Waits until the membership is known; false when the membership service ended first.
    func waitUntilKnown() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready: Bool? = state.withLock { state in
                if state.known { return true }
                if state.abandoned { return false }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The subscriber subscribed: the membership service may announce this instance online.
    func markInboundReady() {
        let waiters = state.withLock { state in
            state.inboundReady = true
            defer { state.inboundWaiters = [] }
            return state.inboundWaiters
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    /// Waits until the subscriber subscribed; false when the run is ending first.
    func waitUntilInboundReady() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready: Bool? = state.withLock { state in
                if state.inboundReady { return true }
                if state.abandoned { return false }
                state.inboundWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Releases every waiter with false (shutdown before start-up completed).
    func abandon() {
        let waiters = state.withLock { state in
            state.abandoned = true
            defer {
                state.waiters = []
                state.inboundWaiters = []
            }
            return state.waiters + state.inboundWaiters
        }
        waiters.forEach { $0.resume(returning: false) }
    }
}
