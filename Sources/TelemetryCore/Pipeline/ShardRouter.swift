/// Assigns devices to processing shards by their routing key (the raw device id level of the topic).
///
/// The shard is `fmix64(fnv1a64(utf8(key))) % shardCount`: the 64-bit FNV-1a hash of the key's UTF-8
/// bytes, finished with MurmurHash3's `fmix64` mixer. Both are fixed and unseeded, so a device lands on
/// the same shard in every run, process and platform (unlike `Hasher`), and all frames of a device are
/// processed in order by one shard.
///
/// Why the mixer: the low `k` bits of an FNV-1a hash depend only on the low `k` bits of each byte, so
/// with plain `fnv % 8` the ids `watch-a`, `watch-i`, `watch-q` and `watch-y` (bytes that differ only
/// in bit 3) would always share a shard. `fmix64` is a bijection that spreads every input bit.
public struct ShardRouter: Sendable {
    /// The number of shards; at least 1.
    public let shardCount: Int

    /// Creates a router.
    /// - Parameter shardCount: the number of shards; must be at least 1.
    public init(shardCount: Int) {
        precondition(shardCount >= 1, "shardCount must be at least 1, got \(shardCount)")
        self.shardCount = shardCount
    }

    /// The shard for a routing key.
    /// - Parameter key: the raw device id level (see ``TopicScheme/routingKey(of:inboundRoot:)``).
    /// - Returns: a shard index in `0..<shardCount`.
    public func shard(forRoutingKey key: some StringProtocol) -> Int {
        Int(Self.mix(FNV1a64.hash(key.utf8)) % UInt64(shardCount))
    }

    /// MurmurHash3's 64-bit finalizer.
    static func mix(_ value: UInt64) -> UInt64 {
        var k = value
        k ^= k >> 33
        k &*= 0xff51_afd7_ed55_8ccd
        k ^= k >> 33
        k &*= 0xc4ce_b9fe_1a85_ec53
        k ^= k >> 33
        return k
    }
}
