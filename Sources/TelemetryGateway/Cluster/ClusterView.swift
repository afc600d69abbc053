import CoreMetrics
import Foundation
import MQTTTransport
import TelemetryCore

/// The membership as this instance sees it, shared between the membership service (which
/// feeds announcements in) and the subscriber's router (which asks who owns a device).
///
/// It keeps the ``MembershipTable`` and the ``OwnershipPlan`` made from it; the router compares
/// plan versions to notice changes without recomputing anything per frame.
final class ClusterView: Sendable {
    /// This instance's name.
    let me: String

    private struct State {
        var table: MembershipTable
        var plan: OwnershipPlan
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

    init(me: String, expiry: Double, warmup: Double, metrics: ClusterMetrics) {
        self.me = me
        self.metrics = metrics
        state = LockedState(State(table: MembershipTable(me: me, expiry: expiry), plan: OwnershipPlan(warmup: warmup)))
    }

    /// The plan after switching to its next ownership if `now` has reached it.
    func plan(at now: Double) -> OwnershipPlan {
        let (plan, switched) = state.withLock { state in
            let switched = state.plan.advance(to: now)
            return (state.plan, switched)
        }
        if switched { recordChange(plan) }
        return plan
    }

    /// The instances whose ownership is in force.
    var owners: [String] { state.withLock { $0.plan.current.instances } }

    /// Records another instance's announcement (`date`: its own timestamp); returns the plan when it changed.
    @discardableResult
    func announce(_ instance: String, _ phase: MembershipTable.Phase, date: Double, at now: Double) -> OwnershipPlan? {
        update(date: date, at: now) { $0.announce(instance, phase, at: now) }
    }

    /// Sets this instance's own phase, announced at `date`; returns the plan when it changed.
    @discardableResult
    func setSelf(_ phase: MembershipTable.Phase, date: Double, at now: Double) -> OwnershipPlan? {
        update(date: date, at: now) { $0.setSelf(phase) }
    }

    /// Takes the instances announced so far as settled (their ownership in force, no warm-up):
    /// what a starting instance finds is what the others already applied.
    func settle(at now: Double) {
        let plan = state.withLock { state in
            state.plan.update(live: state.table.live(at: now), target: state.table.target(at: now), date: -.infinity)
            state.plan.advance(to: now)
            return state.plan
        }
        recordChange(plan)
    }

    /// Re-evaluates expiry and the warm-up at `now`; returns the plan when it changed.
    @discardableResult
    func expire(at now: Double) -> OwnershipPlan? {
        update(date: now, at: now) { $0.prune(at: now) }
    }

    private func update(date: Double, at now: Double, _ change: (inout MembershipTable) -> Void) -> OwnershipPlan? {
        let changed: OwnershipPlan? = state.withLock { state in
            change(&state.table)
            let updated = state.plan.update(live: state.table.live(at: now), target: state.table.target(at: now), date: date)
            let switched = state.plan.advance(to: now)
            return updated || switched ? state.plan : nil
        }
        if let changed { recordChange(changed) }
        return changed
    }

    private func recordChange(_ plan: OwnershipPlan) {
        metrics.membershipChanges.increment()
        metrics.liveInstances.record(plan.current.instances.count)
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
