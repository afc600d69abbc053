import CoreMetrics
import Foundation
import MQTTTransport
import TelemetryCore

/// The membership as this instance sees it, shared between the membership service (which
/// feeds announcements in) and the subscriber's router (which asks who owns a device).
///
/// Each change of the live set makes a new ``RendezvousOwnership`` with a higher version; the
/// router compares versions to notice changes without recomputing anything per frame.
final class ClusterView: Sendable {
    /// This instance's name.
    let me: String

    private struct State {
        var table: MembershipTable
        var live: [String] = []
        var ownership = RendezvousOwnership(instances: [String]())
        var version = 0
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

    init(me: String, expiry: Double, metrics: ClusterMetrics) {
        self.me = me
        self.metrics = metrics
        state = LockedState(State(table: MembershipTable(me: me, expiry: expiry)))
    }

    /// The current ownership and its version.
    var ownership: (version: Int, ownership: RendezvousOwnership) {
        state.withLock { ($0.version, $0.ownership) }
    }

    /// The live instances, as of the last update.
    var live: [String] { state.withLock { $0.live } }

    /// Records another instance's announcement; returns the live set when it changed.
    @discardableResult
    func announce(_ instance: String, online: Bool, at now: Double) -> [String]? {
        update(at: now) { $0.announce(instance, online: online, at: now) }
    }

    /// Counts this instance in or out; returns the live set when it changed.
    @discardableResult
    func setSelfLive(_ live: Bool, at now: Double) -> [String]? {
        update(at: now) { $0.setSelfLive(live) }
    }

    /// Re-evaluates expiry at `now`; returns the live set when it changed.
    @discardableResult
    func expire(at now: Double) -> [String]? {
        update(at: now) { $0.prune(at: now) }
    }

    private func update(at now: Double, _ change: (inout MembershipTable) -> Void) -> [String]? {
        let changed: [String]? = state.withLock { state in
            change(&state.table)
            let live = state.table.live(at: now)
            guard live != state.live else { return nil }
            state.live = live
            state.ownership = RendezvousOwnership(instances: live)
            state.version += 1
            return live
        }
        if let changed {
            metrics.membershipChanges.increment()
            metrics.liveInstances.record(changed.count)
        }
        return changed
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
