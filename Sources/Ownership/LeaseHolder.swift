import Locking

/// One instance's side of the partition leases, as a pure state machine: heartbeat results and
/// store views in, the statements to send next and the role changes out. ``LeasedOwnership``
/// sends the statements and applies the changes; nothing here reads a clock or the store.
///
/// The rules (docs/scale-out.md, *Ownership*):
/// - a partition nobody holds, or whose lease ran out by the store's clock, or that an earlier
///   run of this instance's name held, is taken by the instance the assignment names;
/// - a partition a live instance holds is never taken from it: the holder offers it to the
///   instance the assignment names, which warms up (processes without publishing) and accepts
///   it by compare-and-set, under the next epoch, `warmup` seconds after its devices were
///   listed and subscribed (``prepared(_:at:)``): a warm-up is a report, not only a time, since
///   a next holder whose listing failed (the store away) would otherwise take devices nobody
///   subscribed;
/// - the holder's own deadline is the send time of its last successful heartbeat + `ttl` −
///   `margin` on the monotonic clock; past it the holder keeps its roles (it cannot tell a store
///   outage from a cut) and says so (``isPastDeadline(at:)``);
/// - back from such a gap, the holder takes no expired partition another instance held (and did
///   not give up) for one `ttl` (``quietUntil``): after a full store outage every lease and instance row ran out at
///   once, and the first instance back would otherwise see itself alone and take everything
///   from the others before their next heartbeats renew their own.
public struct LeaseHolder: Sendable {
    /// The timing of the leases.
    public struct Timing: Sendable, Equatable {
        /// Seconds a lease and an instance row live after their last renewal.
        public var ttl: Double
        /// Seconds before the lease's end, on this instance's clock, at which it counts its
        /// lease as possibly lost (transit time, clock rate differences).
        public var margin: Double
        /// Seconds the next holder processes a partition without publishing before it takes it
        /// from a live holder.
        public var warmup: Double

        /// A timing.
        public init(ttl: Double, margin: Double, warmup: Double) {
            self.ttl = ttl
            self.margin = margin
            self.warmup = warmup
        }
    }

    /// What to send to the store after a view.
    public struct Plan: Sendable, Equatable {
        /// Partitions to take (unheld, expired, or an earlier run's).
        public var take: [Int] = []
        /// Partitions to offer, by successor: partition → the epoch held.
        public var offers: [String: [Int: Int64]] = [:]
        /// Offered partitions to accept: partition → the epoch of the offer.
        public var accept: [Int: Int64] = [:]
        /// Role changes the view itself made (a warm-up begun or abandoned).
        public var changes: [OwnershipChange] = []

        /// Whether there is nothing to send.
        public var isEmpty: Bool { take.isEmpty && offers.isEmpty && accept.isEmpty }
    }

    /// This instance.
    public private(set) var member: LeaseMember
    /// The split of device ids into partitions.
    public let partitions: OwnershipPartitions
    /// The timing.
    public let timing: Timing
    /// Partitions held, with their epochs.
    public private(set) var held: [Int: Int64] = [:]
    /// Partitions being warmed up, with when the warm-up began.
    public private(set) var warming: [Int: SuspendingClock.Instant] = [:]
    /// Warming partitions whose devices are listed and subscribed, with when that was reported.
    public private(set) var prepared: [Int: SuspendingClock.Instant] = [:]
    /// The end of the holder's own lease on its clock; nil before the first heartbeat.
    public private(set) var deadline: SuspendingClock.Instant?
    /// Back from a heartbeat gap past its deadline: until then it takes no expired partition
    /// another instance held (they renew theirs meanwhile); nil when there was no gap.
    public private(set) var quietUntil: SuspendingClock.Instant?

    /// A holder holding nothing.
    public init(member: LeaseMember, partitions: OwnershipPartitions, timing: Timing) {
        self.member = member
        self.partitions = partitions
        self.timing = timing
    }

    /// Whether the holder's lease may have run out: its last successful heartbeat was sent
    /// longer than `ttl − margin` ago (or it never had one while holding something).
    public func isPastDeadline(at now: SuspendingClock.Instant) -> Bool {
        guard let deadline else { return !held.isEmpty }
        return now >= deadline
    }

    /// The answer, at `answeredAt`, to a heartbeat sent at `sentAt`: the partitions the store says
    /// this run holds. An answer that comes past the deadline ends a gap (the heartbeat may have
    /// been sent before the deadline and waited for the store): ``quietUntil`` begins.
    /// A held partition missing from it was taken by another instance (a cut long enough for
    /// the lease to run out); one it holds without knowing is an accept or take whose answer
    /// was lost.
    public mutating func renewed(_ leases: [Int: Int64], sentAt: SuspendingClock.Instant, answeredAt: SuspendingClock.Instant) -> [OwnershipChange] {
        if let deadline, answeredAt >= deadline { quietUntil = answeredAt + .roundedSeconds(timing.ttl) }
        deadline = sentAt + .roundedSeconds(timing.ttl - timing.margin)
        var changes: [OwnershipChange] = []
        for partition in held.keys.sorted() where leases[partition] != held[partition] {
            held[partition] = nil
            changes.append(.lost(partition: partition))
        }
        changes += took(leases.filter { held[$0.key] == nil })
        return changes
    }

    /// Records partitions taken or accepted under the given epochs.
    public mutating func took(_ leases: [Int: Int64]) -> [OwnershipChange] {
        var changes: [OwnershipChange] = []
        for (partition, epoch) in leases.sorted(by: { $0.key < $1.key }) where held[partition] != epoch {
            held[partition] = epoch
            endWarmup(partition)
            changes.append(.gained(partition: partition, epoch: epoch))
        }
        return changes
    }

    /// What to send after reading `view` at `now`, and the warm-ups it begins or abandons.
    public mutating func plan(_ view: LeaseView, at now: SuspendingClock.Instant) -> Plan {
        let assignment = PartitionAssignment(partitions: partitions, instances: view.assignable)
        var plan = Plan()
        for partition in partitions.all {
            let target = assignment.instance(for: partition)
            let lease = view.leases[partition]
            if let epoch = held[partition] {
                if let target, target != member.name, lease?.offeredTo != target {
                    plan.offers[target, default: [:]][partition] = epoch
                }
                continue
            }
            // An earlier run's partitions are taken at once, wherever the assignment puts them:
            // this run (a restart) resumed that run's broker session, which holds their devices'
            // frames; those assigned elsewhere are then handed over make-before-break. (An
            // adopted run's leases pass to its stand-in with the adoption: its heartbeat holds them.)
            if let lease, lease.owner == member.name, lease.incarnation != member.incarnation, !lease.released {
                plan.take.append(partition)
                continue
            }
            guard target == member.name else {
                if endWarmup(partition) { plan.changes.append(.lost(partition: partition)) }
                continue
            }
            guard let lease, let owner = lease.owner, !lease.expired, owner != member.name || lease.incarnation == member.incarnation else {
                // Another instance's lease that ran out (not one it gave up) waits while quiet.
                let othersExpired = lease.map { !$0.released && $0.owner != nil && $0.owner != member.name } ?? false
                if othersExpired, let quietUntil, now < quietUntil { continue }
                plan.take.append(partition)
                continue
            }
            guard warming[partition] != nil else {
                warming[partition] = now
                plan.changes.append(.warming(partition: partition))
                continue
            }
            if lease.offeredTo == member.name, let ready = prepared[partition], now - ready >= .roundedSeconds(timing.warmup) {
                plan.accept[partition] = lease.epoch
            }
        }
        return plan
    }

    /// Records that the devices of these warming partitions are listed and subscribed at `now`:
    /// each can be accepted `warmup` seconds later. A partition not warming (any more), or
    /// already reported, is left as it is.
    public mutating func prepared(_ partitions: [Int], at now: SuspendingClock.Instant) {
        for partition in partitions where warming[partition] != nil && prepared[partition] == nil { prepared[partition] = now }
    }

    /// Ends a warm-up (taken, abandoned); whether there was one.
    @discardableResult
    private mutating func endWarmup(_ partition: Int) -> Bool {
        prepared[partition] = nil
        return warming.removeValue(forKey: partition) != nil
    }

    /// Leaves the assignment (a graceful stop): from the next heartbeat the store shows this
    /// instance draining, every partition is assigned to the others, and it offers them.
    public mutating func startDraining() {
        member.draining = true
    }

    /// Forgets every lease (after ``LeaseStoring/leave(_:)``): every held or warming partition is lost.
    public mutating func left() -> [OwnershipChange] {
        let changes = Set(held.keys).union(warming.keys).sorted().map { OwnershipChange.lost(partition: $0) }
        held = [:]
        warming = [:]
        prepared = [:]
        return changes
    }
}
