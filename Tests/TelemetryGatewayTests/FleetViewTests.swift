import Foundation
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The fleet page's state, built from the gateway's own outbound events.
@Suite struct FleetViewTests {
    private static func message(_ topic: String, _ json: String) -> OutboundMessage {
        OutboundMessage(topic: topic, payload: Array(json.utf8))
    }

    private static func devices(_ view: FleetView) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(view.snapshot().json)) as? [String: Any])
        return try #require(object["devices"] as? [[String: Any]])
    }

    @Test("the snapshot holds each device's latest event per family and the histories for the plots")
    func snapshot() throws {
        let view = FleetView(outboundRoot: "gateway", historyLimit: 2)
        view.observe(Self.message("gateway/w2/availability", #"{"model":"Watch7,5"}"#))
        view.observe(Self.message("gateway/w1/connection", #"{"state":"connected"}"#))
        view.observe(Self.message("gateway/w1/connection", #"{"state":"disconnected"}"#))
        for depth in [1.0, 2.0, 3.0] {
            view.observe(Self.message("gateway/w1/submersion/depth-state", #"{"state":"submergedShallow","depth":\#(depth)}"#))
        }
        view.observe(Self.message("gateway/w1/swing", #"{"timeToContact":0.15,"contact":true}"#))
        view.observe(Self.message("gateway/w1/submersion/temperature", #"{"temperature":20,"depth":4}"#))
        view.observe(Self.message("gateway/status", #"{"state":"online"}"#))
        view.observe(OutboundMessage(topic: "gateway/w1/dead-letter", payload: [0xFF], contentType: nil))
        view.observe(Self.message("gateway/w1/probe/unknown", #"{}"#))

        let devices = try Self.devices(view)
        #expect(devices.map { $0["deviceId"] as? String } == ["w1", "w2"], "sorted, gateway-wide topics ignored")
        let w1 = devices[0]
        let latest = try #require(w1["latest"] as? [String: [String: Any]])
        #expect(Set(latest.keys) == ["connection", "depth_state", "swing", "submersion"])
        #expect(latest["connection"]?["state"] as? String == "disconnected")
        let depths = try #require(w1["depthHistory"] as? [[String: Any]]).compactMap { $0["depth"] as? Double }
        #expect(depths == [3, 4], "depth states and other submersion events, bounded to the newest historyLimit entries")
        #expect((w1["swings"] as? [[String: Any]])?.count == 1)
        #expect(((devices[1]["latest"] as? [String: [String: Any]])?["availability"]?["model"]) as? String == "Watch7,5")
    }

    @Test("live subscribers get every update and end when the view closes")
    func updates() async throws {
        let view = FleetView(outboundRoot: "gateway")
        let stream = view.updates()
        view.observe(Self.message("gateway/w1/headphone/connection", #"{"state":"connected","reason":"connectEvent"}"#))
        view.close()
        var received: [[String: Any]] = []
        for await update in stream {
            guard case .event(let json) = update else {
                Issue.record("unexpected \(update)")
                continue
            }
            received.append(try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]))
        }
        #expect(received.count == 1)
        #expect(received.first?["deviceId"] as? String == "w1")
        #expect(received.first?["family"] as? String == "headphone_connection")
        #expect((received.first?["event"] as? [String: String])?["reason"] == "connectEvent")
        var afterClose = view.updates().makeAsyncIterator()
        #expect(await afterClose.next() == nil, "no new subscribers once closed")
    }

    @Test("a bounded number of devices")
    func boundedDevices() throws {
        let view = FleetView(outboundRoot: "gateway", maxDevices: 2)
        for id in ["a", "b", "c"] { view.observe(Self.message("gateway/\(id)/connection", #"{"state":"connected"}"#)) }
        #expect(try Self.devices(view).map { $0["deviceId"] as? String } == ["a", "b"])
    }

    @Test("live subscribers are capped: a new one beyond maxLiveClients ends the oldest, which is told why")
    func liveClientCap() async throws {
        let view = FleetView(outboundRoot: "gateway", maxLiveClients: 2)
        let oldest = view.updates()
        let middle = view.updates()
        view.observe(Self.message("gateway/w1/connection", #"{"state":"connected"}"#))
        let newest = view.updates()
        view.observe(Self.message("gateway/w1/connection", #"{"state":"disconnected"}"#))
        view.close()
        func collect(_ stream: AsyncStream<FleetView.LiveUpdate>) async -> [String] {
            var items: [String] = []
            for await update in stream {
                switch update {
                case .event(let json): items.append(String(decoding: json, as: UTF8.self).contains("disconnected") ? "disconnected" : "connected")
                case .superseded: items.append("superseded")
                }
            }
            return items
        }
        #expect(await collect(oldest) == ["connected", "superseded"], "ended by the third subscriber, after what it had")
        #expect(await collect(middle) == ["connected", "disconnected"])
        #expect(await collect(newest) == ["disconnected"])
    }
}
