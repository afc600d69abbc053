import Ownership

/// A lease store that never answers: the ownership over it holds nothing (or is only asked
/// for its name and its stamps).
struct UnreachableLeaseStore: LeaseStoring {
    struct Unreachable: Error {}
    func heartbeat(_ member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { throw Unreachable() }
    func view() async throws -> LeaseView { throw Unreachable() }
    func take(_ partitions: [Int], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { throw Unreachable() }
    func offer(_ partitions: [Int: Int64], to successor: String, by member: LeaseMember) async throws { throw Unreachable() }
    func accept(_ partitions: [Int: Int64], by member: LeaseMember, ttl: Double) async throws -> [Int: Int64] { throw Unreachable() }
    func leave(_ member: LeaseMember) async throws { throw Unreachable() }
    func adopt(by adopter: String, standIn: String, ttl: Double) async throws -> LeaseMember? { throw Unreachable() }
    func adopter(of member: LeaseMember) async throws -> String? { throw Unreachable() }
}
