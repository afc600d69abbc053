import Locking
import Ownership

/// The output ledger's rules in memory, for tests without PostgreSQL: a lease table (partition →
/// holder run and epoch) and the recorded keys. The PostgreSQL statement is checked against the
/// same rules by `PostgresLeaseTests`.
final class MemoryOutputLedger: OutputLedger {
    private struct State {
        var leases: [Int: (name: String, incarnation: String, epoch: Int64)] = [:]
        var recorded: Set<OutputIdentity> = []
        var failing = false
        var calls = 0
    }

    private let state = LockedState(State())

    /// `member` holds `partition` under `epoch` from now on (a take or an accepted hand-over).
    func lease(_ partition: Int, to member: LeaseMember, epoch: Int64) {
        state.withLock { $0.leases[partition] = (member.name, member.incarnation, epoch) }
    }

    /// Whether every call fails (the store away).
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    /// Statements answered or refused so far.
    var calls: Int { state.withLock { $0.calls } }

    struct Unreachable: Error {}

    func record(_ outputs: [OutputKey], by member: LeaseMember) async throws -> OutputAdmission {
        try state.withLock { state in
            state.calls += 1
            if state.failing { throw Unreachable() }
            var admission = OutputAdmission(recorded: [], held: [:])
            for partition in Set(outputs.map(\.partition)) {
                if let lease = state.leases[partition], lease.name == member.name, lease.incarnation == member.incarnation {
                    admission.held[partition] = lease.epoch
                }
            }
            for key in outputs where !key.eventID.isEmpty && admission.held[key.partition] == key.epoch {
                let identity = OutputIdentity(topic: key.topic, eventID: key.eventID)
                if state.recorded.insert(identity).inserted { admission.recorded.insert(identity) }
            }
            return admission
        }
    }

    func pruneOutputs(olderThan seconds: Double) async throws -> Int { 0 }
}
