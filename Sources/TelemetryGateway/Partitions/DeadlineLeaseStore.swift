import GatewayTime
import Ownership

/// The lease store with every call bounded: a call that has not answered within `seconds` on the
/// gateway's clock fails (it may still go on, and commit, in the background). Without it a
/// heartbeat stuck on a connection that never answers again held the instance past its deadline
/// for good after a full store outage (a CI run of 2026-11-28: one of four instances still
/// "failing" 40 s after the store came back, its partitions taken by the others). A take or an
/// accept that committed after its deadline is learnt from the next renewal
/// (``LeaseHolder/renewed(_:sentAt:answeredAt:)``), a heartbeat's renewal from the next one.
struct DeadlineLeaseStore: LeaseStoring {
    let base: any LeaseStoring
    /// Seconds each call may take.
    let seconds: Double
    let clock: any GatewayClock

    func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.heartbeat(member, ttl: ttl) }
    }

    func view() async throws -> LeaseView {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.view() }
    }

    func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.take(partitions, by: member, ttl: ttl) }
    }

    func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.offer(partitions, to: successor, by: member) }
    }

    func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.accept(partitions, by: member, ttl: ttl) }
    }

    func leave(_ member: LeaseMember) async throws {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.leave(member) }
    }

    func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember? {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.adopt(by: adopter, standIn: standIn, ttl: ttl) }
    }

    func adopter(of member: LeaseMember) async throws -> String? {
        try await withStoreDeadline(seconds, clock: clock) { [base] in try await base.adopter(of: member) }
    }
}
