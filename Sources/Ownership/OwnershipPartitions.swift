import TelemetryCore

/// The fixed split of the device ids into ownership partitions, the unit that instances lease
/// and hand over (not the worker shards inside an instance). A device's partition is the same
/// in every process and run: `fmix64(fnv1a64(id)) % count`, the hash the worker shards use.
public struct OwnershipPartitions: Sendable, Equatable {
    /// The number of partitions every instance sharing a store uses.
    public static let standardCount = 1_024

    /// How many partitions there are.
    public let count: Int
    private let router: ShardRouter

    /// A split into `count` partitions (at least 1).
    public init(count: Int = Self.standardCount) {
        self.count = count
        router = ShardRouter(shardCount: count)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.count == rhs.count }

    /// The partition of a device.
    /// - Parameter device: the raw device id (the device level of its topics).
    public func partition(of device: some StringProtocol) -> Int {
        router.shard(forRoutingKey: device)
    }

    /// Every partition number, `0..<count`.
    public var all: Range<Int> { 0..<count }
}
