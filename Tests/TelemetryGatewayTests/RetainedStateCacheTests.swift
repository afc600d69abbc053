import CoreMetrics
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
}
