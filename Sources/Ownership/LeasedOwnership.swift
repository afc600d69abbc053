import GatewayTime
import Locking
import Logging

/// The ownership of the clustered modes: partitions of the device ids leased in the shared
/// store (``LeaseStoring``), renewed by one statement per heartbeat, handed over make-before-break
/// and fenced by each partition's epoch (docs/scale-out.md, *Ownership*).
///
/// ``role(of:)`` reads a table of the partitions' roles under a lock (the network thread asks it
/// per frame); ``run()`` keeps the table current: every `heartbeat` seconds on the gateway's
/// clock it renews, reads the store's view, and sends what ``LeaseHolder`` plans.
public final class LeasedOwnership: OwnershipPort {
    /// What an operator sees of the leases (metrics, `/readyz`).
    public struct Status: Sendable, Equatable {
        /// Partitions held.
        public var held: Int
        /// Partitions warming up.
        public var warming: Int
        /// Whether the last heartbeat that reached the store is older than the lease's time to
        /// live less the margin: the holder keeps publishing, but another instance may hold its
        /// partitions by now.
        public var pastDeadline: Bool
        /// Heartbeats that failed since the last that reached the store.
        public var failedHeartbeats: Int
    }

    private struct State {
        var holder: LeaseHolder
        var roles: [DeviceRole]
        var failedHeartbeats = 0
        var observer: (@Sendable (OwnershipChange) -> Void)?
    }

    private let store: any LeaseStoring
    private let clock: any GatewayClock
    private let heartbeat: Double
    private let logger: Logger
    private let state: LockedState<State>

    /// An ownership holding nothing until ``run()`` takes its share.
    /// - Parameters:
    ///   - store: where the leases are.
    ///   - member: this instance's name and run.
    ///   - partitions: the split of device ids (the same in every instance).
    ///   - timing: the leases' time to live, margin and warm-up.
    ///   - heartbeat: seconds between heartbeats; well under `timing.ttl`.
    ///   - clock: the gateway's clock.
    ///   - logger: where failed heartbeats are logged.
    public init(
        store: any LeaseStoring, member: LeaseMember, partitions: OwnershipPartitions = OwnershipPartitions(), timing: LeaseHolder.Timing,
        heartbeat: Double, clock: any GatewayClock, logger: Logger
    ) {
        self.store = store
        self.clock = clock
        self.heartbeat = heartbeat
        self.logger = logger
        state = LockedState(
            State(holder: LeaseHolder(member: member, partitions: partitions, timing: timing), roles: Array(repeating: .none, count: partitions.count)))
    }

    public func role(of device: some StringProtocol) -> DeviceRole {
        state.withLock { $0.roles[$0.holder.partitions.partition(of: device)] }
    }

    public func observe(_ observer: @escaping @Sendable (OwnershipChange) -> Void) {
        state.withLock { $0.observer = observer }
    }

    /// The leases as an operator sees them now.
    public var status: Status {
        let now = clock.monotonicNow()
        return state.withLock {
            Status(
                held: $0.holder.held.count, warming: $0.holder.warming.count, pastDeadline: $0.holder.isPastDeadline(at: now),
                failedHeartbeats: $0.failedHeartbeats)
        }
    }

    /// Partitions held now, with their epochs.
    public var held: [Int: Int64] { state.withLock { $0.holder.held } }

    /// Heartbeats until the calling task is cancelled. A heartbeat the store does not answer
    /// changes no role: the instance keeps processing and publishing what it holds (the
    /// decision in docs/scale-out.md, *When the store is unreachable*).
    public func run() async throws {
        while !Task.isCancelled {
            await beat()
            try await clock.sleep(for: heartbeat)
        }
    }

    /// One heartbeat: renew, read the view, send the plan. Public for tests that step a manual clock.
    public func beat() async {
        let member = state.withLock { $0.holder.member }
        let timing = state.withLock { $0.holder.timing }
        let sentAt = clock.monotonicNow()
        do {
            let renewed = try await store.heartbeat(member, ttl: timing.ttl)
            apply { $0.renewed(renewed, sentAt: sentAt) }
            state.withLock { $0.failedHeartbeats = 0 }
            let view = try await store.view()
            let now = clock.monotonicNow()
            let plan = state.withLock { $0.holder.plan(view, at: now) }
            apply { _ in plan.changes }
            if !plan.take.isEmpty {
                let taken = try await store.take(plan.take, by: member, ttl: timing.ttl)
                apply { $0.took(taken) }
            }
            for (successor, offered) in plan.offers.sorted(by: { $0.key < $1.key }) {
                try await store.offer(offered, to: successor, by: member)
            }
            if !plan.accept.isEmpty {
                let accepted = try await store.accept(plan.accept, by: member, ttl: timing.ttl)
                apply { $0.took(accepted) }
            }
        } catch {
            let failed = state.withLock {
                $0.failedHeartbeats += 1
                return $0.failedHeartbeats
            }
            if failed == 1 || failed % 30 == 0 {
                logger.warning("ownership: the store did not answer \(failed) heartbeat(s) in a row: \(error); keeping the partitions held")
            }
        }
    }

    public func leave() async {
        let member = state.withLock { $0.holder.member }
        do {
            try await store.leave(member)
        } catch {
            logger.warning("ownership: could not hand back the leases at leave (\(error)); they run out after their time to live")
        }
        apply { $0.left() }
    }

    /// Applies a step of the holder under the lock, updates the role table, then tells the
    /// observer outside the lock, in order.
    private func apply(_ step: (inout LeaseHolder) -> [OwnershipChange]) {
        let (changes, observer) = state.withLock { state -> ([OwnershipChange], (@Sendable (OwnershipChange) -> Void)?) in
            let changes = step(&state.holder)
            for change in changes {
                switch change {
                case .gained(let partition, let epoch): state.roles[partition] = .owner(epoch: epoch)
                case .warming(let partition): state.roles[partition] = .warming
                case .lost(let partition): state.roles[partition] = .none
                }
            }
            return (changes, state.observer)
        }
        if let observer { changes.forEach(observer) }
    }
}
