import Testing

@testable import TelemetryCore

@Suite struct ShardRouterTests {
    // Expected shards computed independently with Python:
    // h = FNV-1a 64 of the UTF-8 bytes; fmix64 (MurmurHash3); h % n.
    @Test("gives fixed shards across runs, processes and platforms", arguments: [
        ("watch-1", 8, 4), ("watch-2", 8, 6), ("buds-1", 8, 2), ("watch-ultra-1", 8, 7), ("a", 8, 3), ("", 8, 6),
        ("device-0042", 8, 6), ("watch-1", 7, 0), ("watch-2", 7, 4), ("buds-1", 7, 3), ("watch-ultra-1", 7, 4),
        ("a", 3, 2), ("watch-ultra-1", 2, 1), ("device-0042", 1, 0),
    ])
    func fixedShards(_ key: String, _ shardCount: Int, _ expected: Int) {
        #expect(ShardRouter(shardCount: shardCount).shard(forRoutingKey: key) == expected)
    }

    @Test("mixes the FNV-1a hash with fmix64 (values from Python)")
    func hashValues() {
        #expect(FNV1a64.hash("watch-1".utf8) == 0xd71b_91e9_952a_ec2a)
        #expect(ShardRouter.mix(FNV1a64.hash("watch-1".utf8)) == 0xc5aa_e7c6_55f0_4904)
        #expect(ShardRouter.mix(FNV1a64.hash("".utf8)) == 0xefd0_1f60_ba99_2926)
        #expect(ShardRouter.mix(1) == 12_994_781_566_227_106_604)
    }

    @Test("routes a Substring like the equal String")
    func substringKey() {
        let router = ShardRouter(shardCount: 8)
        let key = TopicScheme.routingKey(of: "wearables/watch-ultra-1/status", inboundRoot: "wearables")!
        #expect(router.shard(forRoutingKey: key) == router.shard(forRoutingKey: "watch-ultra-1"))
    }

    @Test("spreads 10,000 ids within ±10% of even", arguments: [2, 8])
    func spread(_ shardCount: Int) {
        let router = ShardRouter(shardCount: shardCount)
        var counts = [Int](repeating: 0, count: shardCount)
        for index in 0..<10_000 { counts[router.shard(forRoutingKey: "device-\(index)")] += 1 }
        let even = 10_000.0 / Double(shardCount)
        for count in counts { #expect(abs(Double(count) - even) <= even * 0.1, "counts \(counts)") }
    }

    @Test("spreads ids whose bytes differ only above the low bits (plain FNV-1a % 8 puts all on one shard)")
    func spreadsHighBitVariants() {
        // 'a', 'i', 'q', 'y' share their low 3 bits, so plain FNV-1a modulo 8 sends all 4,096 ids to one shard.
        let letters: [Character] = ["a", "i", "q", "y"]
        var ids = [""]
        for _ in 0..<6 { ids = ids.flatMap { prefix in letters.map { prefix + String($0) } } }
        #expect(ids.count == 4_096)
        #expect(Set(ids.map { FNV1a64.hash($0.utf8) % 8 }).count == 1)

        let router = ShardRouter(shardCount: 8)
        var counts = [Int](repeating: 0, count: 8)
        for id in ids { counts[router.shard(forRoutingKey: id)] += 1 }
        for count in counts { #expect(abs(Double(count) - 512) <= 512 * 0.1, "counts \(counts)") }
    }

    @Test("always returns a shard in range", arguments: [1, 2, 3, 8, 13])
    func inRange(_ shardCount: Int) {
        let router = ShardRouter(shardCount: shardCount)
        for index in 0..<500 { #expect((0..<shardCount).contains(router.shard(forRoutingKey: "w\(index)"))) }
    }
}
