import Foundation
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The fleet page's state, built from the gateway's own outbound events.
@Suite struct FleetViewTests {
    /// A message as the core publishes it: one on a device's leaf (`gateway/{id}/{leaf}`) names
    /// its device and leaf, any other topic names neither.
    private static func message(_ topic: String, _ json: String) -> OutboundMessage {
        let levels = topic.split(separator: "/", maxSplits: 2)
        guard levels.count == 3, levels[0] == "gateway", let device = DeviceID(levels[1]), let leaf = TopicScheme.Leaf(rawValue: String(levels[2])) else {
            return OutboundMessage(topic: topic, payload: Array(json.utf8))
        }
        return OutboundMessage(leaf, of: device, in: TopicScheme(), payload: Array(json.utf8))
    }

    private static func devices(_ view: FleetView) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(view.snapshot().json)) as? [String: Any])
        return try #require(object["devices"] as? [[String: Any]])
    }

    @Test("the snapshot holds each device's latest event per family and the histories for the plots")
    func snapshot() throws {
        let view = FleetView(historyLimit: 2)
        view.observe(Self.message("gateway/w2/availability", #"{"model":"Watch7,5"}"#))
        view.observe(Self.message("gateway/w1/connection", #"{"state":"connected"}"#))
        view.observe(Self.message("gateway/w1/connection", #"{"state":"disconnected"}"#))
        for depth in [1.0, 2.0, 3.0] {
            view.observe(Self.message("gateway/w1/submersion/depth-state", #"{"state":"submergedShallow","depth":\#(depth)}"#))
        }
        view.observe(Self.message("gateway/w1/swing", #"{"timeToContact":0.15,"contact":true}"#))
        view.observe(Self.message("gateway/w1/submersion/temperature", #"{"temperature":20,"depth":4}"#))
        view.observe(Self.message("gateway/status", #"{"state":"online"}"#))
        view.observe(OutboundMessage(.deadLetter, of: try #require(DeviceID("w1")), in: TopicScheme(), payload: [0xFF], contentType: nil))
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

    @Test("the device and family come from the message, not from its topic")
    func familyFromMessage() throws {
        let view = FleetView()
        // A device leaf's topic without the device and leaf the core names: not a derived event.
        view.observe(OutboundMessage(topic: "gateway/w1/swing", payload: Array(#"{"contact":true}"#.utf8)))
        #expect(try Self.devices(view).isEmpty)
        // Any root: the message says what it is.
        let scheme = TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out")
        view.observe(OutboundMessage(.tennisStroke, of: try #require(DeviceID("w2")), in: scheme, payload: Array(#"{"stroke":"forehand"}"#.utf8)))
        let devices = try Self.devices(view)
        #expect(devices.map { $0["deviceId"] as? String } == ["w2"])
        #expect((devices.first?["latest"] as? [String: Any])?.keys.sorted() == ["tennis_stroke"])
    }

    @Test("live subscribers get every update and end when the view closes")
    func updates() async throws {
        let view = FleetView()
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
        let view = FleetView(maxDevices: 2)
        for id in ["a", "b", "c"] { view.observe(Self.message("gateway/\(id)/connection", #"{"state":"connected"}"#)) }
        #expect(try Self.devices(view).map { $0["deviceId"] as? String } == ["a", "b"])
    }

    @Test("live subscribers are capped: a new one beyond maxLiveClients ends the oldest, which is told why")
    func liveClientCap() async throws {
        let view = FleetView(maxLiveClients: 2)
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
