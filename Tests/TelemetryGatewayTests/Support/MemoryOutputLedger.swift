import Locking
import Ownership

/// The output ledger's rules in memory, for tests without PostgreSQL: a lease table (partition →
/// holder run and epoch) and the recorded keys. The PostgreSQL statement is checked against the
/// same rules by `PostgresLeaseTests`.
final class MemoryOutputLedger: OutputLedger {
    private struct State {
        var leases: [Int: (name: String, incarnation: String, epoch: Int64)] = [:]
        /// Each recorded key with the partition, epoch and queue entry it was recorded under.
        var recorded: [OutputIdentity: (partition: Int, epoch: Int64, queueEntry: Int64)] = [:]
        var failing = false
        /// Statements still to commit whose answer is then lost (the caller sees an error).
        var answersToLose = 0
        var calls = 0
    }

    private let state = LockedState(State())

    /// `member` holds `partition` under `epoch` from now on (a take or an accepted hand-over).
    func lease(_ partition: Int, to member: LeaseMember, epoch: Int64) {
        state.withLock { $0.leases[partition] = (member.name, member.incarnation, epoch) }
    }

    /// Whether every call fails (the store away).
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    /// The next `count` statements commit, but their callers get an error (the reply lost).
    func loseAnswers(_ count: Int) { state.withLock { $0.answersToLose = count } }

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
            let before = state.recorded
            for key in outputs where !key.eventID.isEmpty && admission.held[key.partition] == key.epoch {
                let identity = OutputIdentity(topic: key.topic, eventID: key.eventID)
                if let earlier = before[identity] {
                    // This run's own record from a try whose answer was lost.
                    if earlier == (key.partition, key.epoch, key.queueEntry) { admission.recorded.insert(identity) }
                } else if state.recorded[identity] == nil {
                    state.recorded[identity] = (key.partition, key.epoch, key.queueEntry)
                    admission.recorded.insert(identity)
                }
            }
            if state.answersToLose > 0 {
                state.answersToLose -= 1
                throw Unreachable()
            }
            return admission
        }
    }

    func pruneOutputs(olderThan seconds: Double) async throws -> Int { 0 }
}
