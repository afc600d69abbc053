/// Which gateway instance owns which device in partitioned mode: rendezvous (highest random
/// weight) hashing of the device id over the live instances.
///
/// Every instance scores every device: `fmix64(fnv1a64(device) ^ fmix64(fnv1a64(instance)))`; the
/// device belongs to the instance with the highest score (ties, which need equal 64-bit values,
/// go to the smaller name). Because each score depends only on the device and one instance:
/// - every instance with the same member list computes the same owner, with no coordination and in
///   every run, process and platform (the hashes are fixed and unseeded, like ``ShardRouter``);
/// - when an instance leaves, only its devices move (each to its second-best instance), and when
///   one joins it takes only the devices it now scores highest on (about 1/N of them): the
///   minimal movement a partition can have.
///
/// A pure value: no clock, no I/O. `TelemetryGateway` keeps one per membership view.
public struct RendezvousOwnership: Sendable, Equatable {
    /// The live instances, sorted by name.
    public let instances: [String]
    private let seeds: [UInt64]

    /// Creates the ownership over a set of instance names (duplicates are ignored).
    /// - Parameter instances: the live instances; may be empty (then nobody owns anything).
    public init(instances: some Sequence<String>) {
        let sorted = Set(instances).sorted()
        self.instances = sorted
        seeds = sorted.map { ShardRouter.mix(FNV1a64.hash($0.utf8)) }
    }

    /// The owner of a device, nil when there are no instances.
    /// - Parameter key: the raw device id (the routing key of its topics).
    public func owner(of key: some StringProtocol) -> String? {
        guard let index = ownerIndex(of: key) else { return nil }
        return instances[index]
    }

    /// Whether `instance` owns the device.
    /// - Parameters:
    ///   - key: the raw device id.
    ///   - instance: an instance name.
    public func owns(_ instance: String, _ key: some StringProtocol) -> Bool {
        guard let index = ownerIndex(of: key) else { return false }
        return instances[index] == instance
    }

    private func ownerIndex(of key: some StringProtocol) -> Int? {
        guard !seeds.isEmpty else { return nil }
        let device = FNV1a64.hash(key.utf8)
        var best = 0
        var bestScore = ShardRouter.mix(device ^ seeds[0])
        for index in seeds.indices.dropFirst() {
            // Names are sorted, so on an (improbable) tie the smaller name stays.
            let score = ShardRouter.mix(device ^ seeds[index])
            if score > bestScore {
                best = index
                bestScore = score
            }
        }
        return best
    }
}
