import Foundation
import GatewayTime
import Locking

/// The lease rules of ``LeaseStoring`` and ``OutputLedger`` in memory, each call one step under
/// one lock, judged by one clock (the store's, as PostgreSQL's `clock_timestamp()` is for
/// `PostgresLeaseStore`). It exists so the take, offer, accept, adoption and ledger rules are
/// tested without PostgreSQL: the same contract tests run against both (`LeaseStoreContract`).
/// It shares nothing between processes, so a gateway never runs on it.
public final class InMemoryLeaseStore: LeaseStoring, OutputLedger {
    private struct Instance {
        var incarnation: String
        var draining: Bool
        var session: String?
        var startedAt: Double
        var liveSince: Double
        var renewedAt: Double
        var expiresAt: Double
        var adoptedBy: String?
        var adoptedUntil: Double?
        var standIn: String?
    }

    private struct Lease {
        var owner: String?
        var incarnation: String?
        var epoch: Int64 = 0
        /// `-infinity`: never held, or given up.
        var expiresAt = -Double.infinity
        var offeredTo: String?
    }

    private struct Output {
        var partition: Int
        var epoch: Int64
        var queueEntry: Int64
        var recordedAt: Double
    }

    private struct State {
        var instances: [String: Instance] = [:]
        var leases: [Lease]
        var outputs: [OutputIdentity: Output] = [:]
    }

    private let clock: any GatewayClock
    private let adoptionWindow: Double
    private let state: LockedState<State>

    /// An empty store of `partitions` leases, nobody registered.
    /// - Parameters:
    ///   - clock: the store's clock (its wall time, in seconds).
    ///   - adoptionWindow: seconds a dead instance may be adopted in after its row expired; 0: no adoption.
    public init(clock: any GatewayClock, adoptionWindow: Double = 0, partitions: Int = OwnershipPartitions.standardCount) {
        self.clock = clock
        self.adoptionWindow = adoptionWindow
        state = LockedState(State(leases: Array(repeating: Lease(), count: partitions)))
    }

    public func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        let now = clock.wallTime()
        return try state.withLock { state in
            if let row = state.instances[member.name] {
                // A name is one live run's: this run's row, or a dead run's (expired), or the run
                // this one proved dead; under a live adoption only the stand-in registers.
                let adoptionLive = (row.adoptedUntil ?? -.infinity) >= now && row.standIn != member.incarnation
                let mayRegister =
                    row.incarnation == member.incarnation || row.standIn == member.incarnation || row.expiresAt < now || row.incarnation == member.succeeds
                guard !adoptionLive, mayRegister else {
                    if (row.adoptedUntil ?? -.infinity) >= now { throw InstanceNameAdopted(adopter: row.adoptedBy ?? "?") }
                    throw InstanceNameInUse(
                        name: member.name, incarnation: row.incarnation, session: row.session, startedAt: Self.iso8601(row.startedAt),
                        renewedAt: Int64(row.renewedAt * 1_000_000), expiresIn: row.expiresAt - now)
                }
                let sameRun = row.incarnation == member.incarnation
                let continuesAdoption = row.standIn == member.incarnation
                state.instances[member.name] = Instance(
                    incarnation: member.incarnation, draining: member.draining, session: member.session, startedAt: sameRun ? row.startedAt : now,
                    liveSince: sameRun && row.expiresAt >= now ? row.liveSince : now, renewedAt: now, expiresAt: now + ttl,
                    adoptedBy: continuesAdoption ? row.adoptedBy : nil,
                    adoptedUntil: continuesAdoption ? max(row.adoptedUntil ?? -.infinity, now + ttl) : nil, standIn: continuesAdoption ? row.standIn : nil)
            } else {
                state.instances[member.name] = Instance(
                    incarnation: member.incarnation, draining: member.draining, session: member.session, startedAt: now, liveSince: now, renewedAt: now,
                    expiresAt: now + ttl)
            }
            var held: [Int: Int64] = [:]
            for partition in state.leases.indices where state.leases[partition].owner == member.name && state.leases[partition].incarnation == member.incarnation {
                state.leases[partition].expiresAt = now + ttl
                held[partition] = state.leases[partition].epoch
            }
            return held
        }
    }

    public func view() async throws -> LeaseView {
        let now = clock.wallTime()
        return state.withLock { state in
            var view = LeaseView(instances: [:], leases: [:])
            for (name, row) in state.instances where row.expiresAt > now { view.instances[name] = row.draining }
            for (partition, lease) in state.leases.enumerated() {
                view.leases[partition] = LeaseView.Lease(
                    partition: partition, owner: lease.owner, incarnation: lease.incarnation, epoch: lease.epoch, expired: lease.expiresAt <= now,
                    offeredTo: lease.offeredTo, released: lease.expiresAt == -.infinity)
            }
            return view
        }
    }

    public func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        let now = clock.wallTime()
        return state.withLock { state in
            // Only the run registered under its name takes anything.
            guard state.instances[member.name]?.incarnation == member.incarnation else { return [:] }
            var taken: [Int: Int64] = [:]
            for partition in Set(partitions) where state.leases.indices.contains(partition) {
                let lease = state.leases[partition]
                guard Self.mayTake(lease, by: member, instances: state.instances, now: now, adoptionWindow: adoptionWindow) else { continue }
                state.leases[partition] = Lease(owner: member.name, incarnation: member.incarnation, epoch: lease.epoch + 1, expiresAt: now + ttl)
                taken[partition] = lease.epoch + 1
            }
            return taken
        }
    }

    /// The take statement's rule: a lease nobody holds; an earlier run's of the same name
    /// (unless another instance adopted the name and this is not its stand-in); another
    /// instance's expired lease once that instance is neither under a live adoption nor within
    /// its adoption window.
    private static func mayTake(_ lease: Lease, by member: LeaseMember, instances: [String: Instance], now: Double, adoptionWindow: Double) -> Bool {
        guard let owner = lease.owner else { return true }
        let row = instances[owner]
        let adoptedNow = row.map { ($0.adoptedUntil ?? -.infinity) >= now } ?? false
        if owner == member.name {
            return lease.incarnation != member.incarnation && !(adoptedNow && row?.standIn != member.incarnation)
        }
        guard lease.expiresAt < now else { return false }
        guard let row else { return true }
        let sameRun = row.incarnation == lease.incarnation || row.standIn == lease.incarnation
        let withinWindow = max(row.expiresAt, row.adoptedUntil ?? -.infinity) > now - adoptionWindow
        return !adoptedNow && !(sameRun && withinWindow)
    }

    public func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws {
        state.withLock { state in
            for (partition, epoch) in partitions where state.leases.indices.contains(partition) {
                let lease = state.leases[partition]
                guard lease.epoch == epoch, lease.owner == member.name, lease.incarnation == member.incarnation else { continue }
                state.leases[partition].offeredTo = successor
            }
        }
    }

    public func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        let now = clock.wallTime()
        return state.withLock { state in
            guard state.instances[member.name]?.incarnation == member.incarnation else { return [:] }
            var accepted: [Int: Int64] = [:]
            for (partition, epoch) in partitions where state.leases.indices.contains(partition) {
                let lease = state.leases[partition]
                guard lease.epoch == epoch, lease.offeredTo == member.name else { continue }
                state.leases[partition] = Lease(owner: member.name, incarnation: member.incarnation, epoch: epoch + 1, expiresAt: now + ttl)
                accepted[partition] = epoch + 1
            }
            return accepted
        }
    }

    public func leave(_ member: LeaseMember) async throws {
        state.withLock { state in
            if state.instances[member.name]?.incarnation == member.incarnation { state.instances[member.name] = nil }
            for partition in state.leases.indices where state.leases[partition].owner == member.name && state.leases[partition].incarnation == member.incarnation {
                state.leases[partition].expiresAt = -.infinity
                state.leases[partition].offeredTo = nil
            }
        }
    }

    public func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember? {
        guard adoptionWindow > 0 else { return nil }
        let now = clock.wallTime()
        return state.withLock { state in
            // Only a live adopter whose row was live when the dead one's expired.
            guard let me = state.instances[adopter], me.expiresAt > now else { return nil }
            let dead = state.instances.filter { name, row in
                name != adopter && row.expiresAt < now && (row.adoptedUntil ?? -.infinity) < now
                    && max(row.expiresAt, row.adoptedUntil ?? -.infinity) > now - adoptionWindow && me.liveSince < row.expiresAt
            }
            guard let (name, row) = dead.min(by: { max($0.value.expiresAt, $0.value.adoptedUntil ?? -.infinity) < max($1.value.expiresAt, $1.value.adoptedUntil ?? -.infinity) })
            else { return nil }
            // Its leases pass to the stand-in under the next epochs; a pending offer is withdrawn.
            for partition in state.leases.indices {
                let lease = state.leases[partition]
                guard lease.owner == name, lease.incarnation == row.incarnation || lease.incarnation == row.standIn, lease.expiresAt > -.infinity else { continue }
                state.leases[partition].incarnation = standIn
                state.leases[partition].offeredTo = nil
                state.leases[partition].epoch += 1
            }
            state.instances[name]?.adoptedBy = adopter
            state.instances[name]?.standIn = standIn
            state.instances[name]?.adoptedUntil = now + ttl
            return LeaseMember(name: name, incarnation: row.incarnation, session: row.session)
        }
    }

    public func adopter(of member: LeaseMember) async throws -> String? {
        let now = clock.wallTime()
        return state.withLock { state in
            guard let row = state.instances[member.name], let adopter = row.adoptedBy, (row.adoptedUntil ?? -.infinity) >= now else { return nil }
            return adopter
        }
    }

    public func record(_ outputs: [OutputKey], by member: LeaseMember) async throws -> OutputAdmission {
        let now = clock.wallTime()
        return state.withLock { state in
            var admission = OutputAdmission(recorded: [], held: [:])
            for partition in Set(outputs.map(\.partition)) where state.leases.indices.contains(partition) {
                let lease = state.leases[partition]
                if lease.owner == member.name, lease.incarnation == member.incarnation { admission.held[partition] = lease.epoch }
            }
            let before = state.outputs
            for output in outputs where !output.eventID.isEmpty && admission.held[output.partition] == output.epoch {
                let identity = OutputIdentity(topic: output.topic, eventID: output.eventID)
                if let earlier = before[identity] {
                    // This run's own record of the same entry, from a try whose answer was lost.
                    if earlier.partition == output.partition, earlier.epoch == output.epoch, earlier.queueEntry == output.queueEntry {
                        admission.recorded.insert(identity)
                    }
                } else if state.outputs[identity] == nil {
                    state.outputs[identity] = Output(partition: output.partition, epoch: output.epoch, queueEntry: output.queueEntry, recordedAt: now)
                    admission.recorded.insert(identity)
                }
            }
            return admission
        }
    }

    public func pruneOutputs(olderThan seconds: Double) async throws -> Int {
        let cutoff = clock.wallTime() - seconds
        return state.withLock { state in
            let before = state.outputs.count
            state.outputs = state.outputs.filter { $0.value.recordedAt >= cutoff }
            return before - state.outputs.count
        }
    }

    /// `seconds` since the Unix epoch as ISO 8601 in UTC, to the second (as the SQL statement
    /// formats a run's start).
    private static func iso8601(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds.rounded(.down)).ISO8601Format()
    }
}
