import CoreMetrics
import Ownership
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The retained cache re-announces the gateway's retained state after a broker restart: bounded
/// in bytes, oldest-written dropped first and counted, deletions followed, payloads kept compact.
@Suite("Retained state cache")
struct RetainedStateCacheTests {
    private static func message(_ topic: String, _ text: String, retain: Bool = true) -> OutboundMessage {
        OutboundMessage(topic: topic, payload: Array(text.utf8), retain: retain)
    }

    @Test("keeps the latest retained message per topic, oldest-written first; an empty payload deletes")
    func latestPerTopic() {
        let cache = RetainedStateCache(limit: 1 << 20)
        cache.record(Self.message("gateway/a/availability", "1"))
        cache.record(Self.message("gateway/b/availability", "1"))
        cache.record(Self.message("gateway/a/availability", "2"))
        cache.record(Self.message("gateway/c/swing", "not retained", retain: false))
        #expect(cache.snapshot().map(\.topic) == ["gateway/b/availability", "gateway/a/availability"])
        #expect(cache.snapshot().last?.payload == Array("2".utf8))
        cache.record(Self.message("gateway/b/availability", ""))
        #expect(cache.snapshot().map(\.topic) == ["gateway/a/availability"])
    }

    @Test("past the byte bound the oldest-written topics are dropped and counted")
    func boundInBytes() {
        let counter = Counter(label: "test_retained_evicted_\(UInt64.random(in: 0...UInt64.max))")
        // Each entry is 11 topic bytes + 10 payload bytes; three fit in 63.
        let cache = RetainedStateCache(limit: 63, evictions: counter)
        for index in 0..<5 {
            cache.record(Self.message("gateway/\(index)/x", String(repeating: "p", count: 10)))
        }
        #expect(cache.count == 3)
        #expect(cache.evictedCount == 2)
        #expect(cache.snapshot().map(\.topic) == ["gateway/2/x", "gateway/3/x", "gateway/4/x"])
    }

    @Test("a payload with spare capacity is kept in a buffer of its size")
    func compactPayloads() {
        var payload: [UInt8] = []
        payload.reserveCapacity(4096)
        payload += Array("{\"state\":\"available\"}".utf8)
        let cache = RetainedStateCache(limit: 1 << 20)
        cache.record(OutboundMessage(topic: "gateway/a/availability", payload: payload, retain: true))
        let kept = cache.snapshot()[0].payload
        #expect(kept == payload)
        #expect(kept.capacity < 256)
    }

    private static func deviceMessage(_ device: String, _ leaf: TopicScheme.Leaf, _ text: String) -> OutboundMessage {
        OutboundMessage(leaf, of: DeviceID(device)!, in: TopicScheme(), payload: Array(text.utf8))
    }

    @Test("restoring a snapshot's messages takes only topics with no message here; a device's messages come out oldest first")
    func restoreTakesAbsentTopics() {
        let cache = RetainedStateCache(limit: 1 << 20)
        cache.record(Self.deviceMessage("diver-1", .submersionDepthState, "newest"))
        let restored = cache.restore([
            Self.deviceMessage("diver-1", .submersionDepthState, "stored, older"),
            Self.deviceMessage("diver-1", .availability, "stored availability"),
            Self.deviceMessage("diver-1", .swing, "not retained"),
        ])
        #expect(restored == 1)
        let messages = cache.messages(of: DeviceID("diver-1")!) ?? []
        #expect(messages.map(\.payloadString) == ["newest", "stored availability"])
        #expect(cache.messages(of: DeviceID("diver-2")!) == nil)
    }

    @Test("a lost partition's devices are forgotten, only those the caller's shard accepts, resident or not")
    func forgetPartition() throws {
        let partitions = OwnershipPartitions(count: 4)
        let cache = RetainedStateCache(limit: 1 << 20, partitions: partitions)
        let devices = (0..<40).map { "fleet-\($0)" }
        for device in devices { cache.record(Self.deviceMessage(device, .connection, "online")) }
        let lost = partitions.partition(of: "fleet-0")
        let inLost = devices.filter { partitions.partition(of: $0) == lost }
        let kept = try #require(inLost.last)
        cache.forget(partition: lost) { $0.rawValue != kept }
        let left = Set(cache.snapshot().compactMap(\.device?.rawValue))
        #expect(left == Set(devices).subtracting(inLost).union([kept]))
        cache.forget(partition: lost) { _ in true }
        #expect(cache.messages(of: DeviceID(kept)!) == nil)
        #expect(cache.count == devices.count - inLost.count)
    }
}
