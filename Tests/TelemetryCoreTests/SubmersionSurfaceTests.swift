import Foundation
import Testing

@testable import TelemetryCore

/// The watch's own depth state next to the derived one, and dives closed by the surface timeout
/// when the `notSubmerged` event is lost.
@Suite("Submersion: deviceState and the surface timeout")
struct SubmersionSurfaceTests {
    private static let t0 = 1_700_000_000.0

    @Test("depth-state messages carry the watch's reported submersionState as deviceState (null before any measurement)")
    func deviceState() throws {
        var feed = SubmersionFeed()
        feed.event(Self.t0, .submerged)
        let first = try #require(feed.messages(TopicScheme.Leaf.submersionDepthState.rawValue).last)
        #expect(first.jsonObject?.keys.contains("deviceState") == true)
        #expect(first.jsonObject?["deviceState"] is NSNull)
        // The watch says shallow while 1.2 m of depth is deep by the contract's bands.
        feed.measurement(Self.t0 + 1, depth: 1.2, state: .submergedShallow)
        let deep = try #require(feed.messages(TopicScheme.Leaf.submersionDepthState.rawValue).last)
        #expect(deep.string("state") == "submergedDeep")
        #expect(deep.string("deviceState") == "submergedShallow")
        #expect(deep.number("deviceStateRawValue") == Double(DepthState.submergedShallow.rawValue))
    }

    @Test("a lost notSubmerged: measurements at the surface for the timeout end the dive (limit included), then a late event changes nothing")
    func surfaceTimeoutByMeasurements() throws {
        var configuration = SubmersionConfiguration()
        configuration.surfaceTimeout = 60
        var feed = SubmersionFeed(configuration: configuration)
        feed.event(Self.t0, .submerged)
        feed.measurement(Self.t0 + 10, depth: 4)
        feed.measurement(Self.t0 + 100, depth: 0.2)  // at the surface (below 0.3 m)
        feed.measurement(Self.t0 + 130, depth: 0.5)  // back under: the count restarts
        feed.measurement(Self.t0 + 140, depth: nil, state: .notSubmerged)  // the watch's surface shape: no depth, no pressure
        feed.measurement(Self.t0 + 199.9, depth: 0.1)
        #expect(feed.messages(TopicScheme.Leaf.submersionDive.rawValue).isEmpty, "59.9 s at the surface: still diving")
        feed.measurement(Self.t0 + 200, depth: nil, pressure: 101.3 + 0.01)  // 0.1 cm from pressure, exactly 60 s
        let dive = try #require(feed.messages(TopicScheme.Leaf.submersionDive.rawValue).first)
        #expect(dive.string("endReason") == "surfaceTimeout")
        #expect(feed.states.last == .notSubmerged)
        #expect(feed.messages(TopicScheme.Leaf.submersionDepthState.rawValue).last?.string("cause") == "surfaceTimeout")
        #expect(feed.deriver.dive == nil)
        feed.event(Self.t0 + 205, .notSubmerged)  // the event arrives after all
        #expect(feed.messages(TopicScheme.Leaf.submersionDive.rawValue).count == 1)
        #expect(feed.states.last == .notSubmerged)
    }

    @Test("measurements that stop at the surface: the gateway's clock completes the timeout")
    func surfaceTimeoutByTicks() throws {
        var feed = SubmersionFeed()
        feed.event(Self.t0, .submerged)
        feed.measurement(Self.t0 + 10, depth: 3)
        feed.receivedAt = 3_000
        feed.measurement(Self.t0 + 20, depth: nil, state: .notSubmerged)
        let surfacedAt = feed.receivedAt
        #expect(feed.tick(at: surfacedAt + 59.9).isEmpty)
        let closing = feed.tick(at: surfacedAt + 60)
        #expect(closing.contains { $0.topic.hasSuffix("/submersion/dive") })
        #expect(feed.deriver.dive == nil)
    }

    @Test("a slow replay keeps the dive: ticks count from the last arrival, not the first surface reading")
    func replayDoesNotCloseEarly() {
        var feed = SubmersionFeed()
        feed.event(Self.t0, .submerged)
        feed.receivedAt = 3_000
        feed.measurement(Self.t0 + 10, depth: 0.2)  // a shallow stretch of the dive, device time
        for step in 1...10 {
            feed.tick(at: 3_000 + Double(step) * 10)  // the gateway is slow: 100 s pass in all...
            feed.measurement(Self.t0 + 10 + Double(step) * 5, depth: step < 10 ? 0.2 : 2)  // ...but frames keep coming, 50 s of device time
        }
        #expect(feed.messages(TopicScheme.Leaf.submersionDive.rawValue).isEmpty)
        #expect(feed.deriver.dive != nil)
    }

    @Test("a reordered, stale measurement neither starts nor restarts the surface count")
    func staleIgnored() {
        var feed = SubmersionFeed()
        feed.event(Self.t0, .submerged)
        feed.measurement(Self.t0 + 50, depth: 0.1)
        feed.measurement(Self.t0 + 40, depth: 5)  // older than the last: stale
        feed.measurement(Self.t0 + 110, depth: 0.1)
        #expect(feed.messages(TopicScheme.Leaf.submersionDive.rawValue).count == 1, "60 s since the first surface reading; the stale deep one did not reset it")
    }

    @Test("an ordinary dive with its notSubmerged event still ends as surfaced")
    func eventStillWins() {
        var feed = SubmersionFeed()
        feed.event(Self.t0, .submerged)
        feed.measurement(Self.t0 + 10, depth: 2)
        feed.measurement(Self.t0 + 20, depth: 0.1)
        feed.event(Self.t0 + 25, .notSubmerged)
        #expect(feed.messages(TopicScheme.Leaf.submersionDive.rawValue).map { $0.string("endReason") } == ["surfaced"])
    }
}
