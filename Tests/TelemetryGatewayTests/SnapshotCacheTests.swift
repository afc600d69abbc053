import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The snapshots and trails an instance keeps for take-overs: newest snapshot wins, the trail
/// holds only what the snapshot does not cover, and the byte bound drops whole devices.
@Suite struct SnapshotCacheTests {
    static func frame(_ device: String, _ stream: String, at time: Double, bytes: Int = 10) -> InboundFrame {
        InboundFrame(topic: "wearables/\(device)/\(stream)", payload: [UInt8](repeating: 0x20, count: bytes), receivedAt: time)
    }

    @Test("a newer snapshot replaces the kept one and drops the trail it covers; an older one is ignored")
    func newestWins() throws {
        var cache = SnapshotCache(limit: 1 << 20, horizon: 10)
        cache.append(Self.frame("w1", "submersion/measurement", at: 100), key: "w1")
        cache.append(Self.frame("w1", "submersion/measurement", at: 101), key: "w1")
        let kept = cache.keepSnapshot(Array("new".utf8), lastSeen: 100.5, key: "w1")
        let late = cache.keepSnapshot(Array("old".utf8), lastSeen: 99, key: "w1")
        #expect(kept && !late, "a late snapshot of an earlier state is ignored")
        cache.append(Self.frame("w1", "submersion/measurement", at: 102), key: "w1")
        let taken = try #require(cache.take("w1") as SnapshotCache.Taken?)
        #expect(taken.snapshot == Array("new".utf8) && taken.lastSeen == 100.5)
        #expect(taken.trail.map(\.receivedAt) == [101, 102])
        let again = try #require(cache.take("w1") as SnapshotCache.Taken?, "the snapshot stays for a later gain")
        #expect(again.snapshot == Array("new".utf8) && again.trail.isEmpty, "the trail was taken")
    }

    @Test("trail frames older than the horizon before the newest are dropped; a device with only a trail is gone once taken")
    func horizon() throws {
        var cache = SnapshotCache(limit: 1 << 20, horizon: 5)
        for time in stride(from: 100.0, through: 110, by: 1) { cache.append(Self.frame("w1", "status", at: time), key: "w1") }
        let taken = try #require(cache.take("w1") as SnapshotCache.Taken?)
        #expect(taken.snapshot == nil && taken.trail.map(\.receivedAt) == [105, 106, 107, 108, 109, 110])
        let again = cache.take("w1")
        #expect(again == nil && cache.count == 0 && cache.bytes == 0)
    }

    @Test("over the byte bound the least recently updated devices are dropped and counted")
    func bound() {
        var cache = SnapshotCache(limit: 1_000, horizon: 10)
        for index in 0..<5 { cache.keepSnapshot([UInt8](repeating: 1, count: 300), lastSeen: Double(index), key: "w\(index)") }
        #expect(cache.count == 3 && cache.bytes <= 1_000)
        let dropped = (cache.takeDropped(), cache.takeDropped())
        #expect(dropped == (2, 0))
        let early = (cache.take("w0"), cache.take("w1"), cache.take("w4"))
        #expect(early.0 == nil && early.1 == nil && early.2 != nil)
        // Updating w2 makes w3 the least recent (w4 was just taken).
        cache.keepSnapshot([UInt8](repeating: 1, count: 300), lastSeen: 9, key: "w2")
        cache.keepSnapshot([UInt8](repeating: 1, count: 300), lastSeen: 9, key: "w5")
        let late = (cache.take("w3"), cache.take("w2"))
        #expect(late.0 == nil && late.1 != nil)
        cache.clear("w2")
        let cleared = cache.take("w2")
        #expect(cleared == nil)
    }
}
