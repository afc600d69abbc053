import TelemetryCore

/// Which live instance should hold each ownership partition: rendezvous hashing of the
/// partition over the instances' names (``RendezvousOwnership``), so every instance reading the
/// same member list from the store computes the same assignment, a leaving instance moves only
/// its partitions and a joining one takes only about 1/N of them. A pure value.
public struct PartitionAssignment: Sendable, Equatable {
    /// The instances partitions are assigned to, sorted by name.
    public let instances: [String]
    /// The assigned instance's index in ``instances`` per partition; empty without instances.
    private let assigned: [Int]

    /// The assignment of `partitions` over `instances` (duplicates ignored; none assigns nothing).
    public init(partitions: OwnershipPartitions, instances: some Sequence<String>) {
        let rendezvous = RendezvousOwnership(instances: instances)
        self.instances = rendezvous.instances
        let index = Dictionary(uniqueKeysWithValues: rendezvous.instances.enumerated().map { ($1, $0) })
        assigned = rendezvous.instances.isEmpty ? [] : partitions.all.map { index[rendezvous.owner(of: Self.key(of: $0))!]! }
    }

    /// The instance that should hold `partition`, nil when no instance is live.
    public func instance(for partition: Int) -> String? {
        assigned.indices.contains(partition) ? instances[assigned[partition]] : nil
    }

    /// The partitions assigned to `instance`.
    public func partitions(of instance: String) -> [Int] {
        guard let wanted = instances.firstIndex(of: instance) else { return [] }
        return assigned.indices.filter { assigned[$0] == wanted }
    }

    /// The name a partition is hashed by.
    static func key(of partition: Int) -> String { "partition-\(partition)" }
}
