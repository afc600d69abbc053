import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

@testable import TelemetryGateway

/// The HTTP service of an in-process gateway on a real broker: metrics, liveness, readiness
/// through a broker outage, the fleet snapshot, and dead letters with their user properties.
@Suite(.serialized) struct HTTPEndpointTests {
    private static func get(_ url: URL) async -> HTTPAnswer? { await HTTPAnswer.get(url) }

    /// Polls `url` until `predicate` holds for its answer; fails after `timeout` seconds.
    @discardableResult
    private static func waitFor(_ url: URL, timeout: Double, _ what: String, until predicate: (HTTPAnswer) -> Bool) async throws -> HTTPAnswer {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last: HTTPAnswer?
        while ContinuousClock.now < deadline {
            if let answer = await get(url) {
                last = answer
                if predicate(answer) { return answer }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("timed out after \(timeout) s waiting for \(what); last answer: \(last.map { "\($0.status) \($0.text.prefix(300))" } ?? "none")")
    }

    private static func start(_ broker: TestBroker) async throws -> (GatewayRun, URL) {
        var configuration = try GatewayHarness.configuration(broker: broker)
        let port = try TestBroker.freePort()
        configuration.http.listen = HTTPListenAddress(host: "127.0.0.1", port: port)
        configuration.deadLetters.enabled = true
        let run = try await GatewayRun.start(broker, configuration: configuration)
        return (run, URL(string: "http://127.0.0.1:\(port)")!)
    }

    @Test("metrics as Prometheus text; ready only while the broker is up; healthy throughout")
    func metricsHealthReadiness() async throws {
        let broker = try await TestBroker.started()
        let (run, base) = try await Self.start(broker)
        let ready = try await Self.waitFor(base.appendingPathComponent("readyz"), timeout: 20, "/readyz 200") { $0.status == 200 }
        #expect(ready.text.contains(#""status":"ok""#))
        #expect(ready.contentType == "application/json")

        // Round-trip probes run every metrics.publishInterval (0.2 s here).
        let metrics = try await Self.waitFor(base.appendingPathComponent("metrics"), timeout: 20, "a broker round trip in /metrics") {
            PrometheusText(text: $0.text).sum("gateway_mqtt_publish_round_trip_seconds_count") >= 1
        }
        #expect(metrics.contentType.hasPrefix("text/plain; version=0.0.4"))
        let text = PrometheusText(text: metrics.text)
        #expect(text.sum("gateway_mqtt_connected") == 2)
        #expect(metrics.text.contains("# TYPE gateway_event_latency_seconds histogram"))

        broker.kill()
        let stoppedAt = ContinuousClock.now
        let down = try await Self.waitFor(base.appendingPathComponent("readyz"), timeout: 10, "/readyz 503 after the broker stopped") { $0.status == 503 }
        #expect(ContinuousClock.now - stoppedAt < .seconds(10))
        #expect(down.text.contains("connection to the broker is down"))
        #expect(await Self.get(base.appendingPathComponent("healthz"))?.status == 200, "a broker outage is not a liveness failure")

        try await broker.restarted()
        try await Self.waitFor(base.appendingPathComponent("readyz"), timeout: 20, "/readyz 200 after the broker is back") { $0.status == 200 }
        #expect(await Self.get(base.appendingPathComponent("healthz"))?.status == 200)
        try await run.stop()
    }

    @Test("a garbage frame comes back byte for byte as a dead letter; the fleet page's data lists the device")
    func deadLetterAndFleet() async throws {
        let broker = try await TestBroker.started()
        let (run, base) = try await Self.start(broker)
        let device = try await TestClients.connected(try TestClients.configuration(broker, id: "dl-device-1"))
        let garbage: [UInt8] = Array("garbage".utf8) + [0xFF, 0xFE, 0x00] + Array("{not json".utf8)
        try await device.publish(MQTTMessage(topic: "wearables/dl-device-1/motion", payload: garbage, qos: .atLeastOnce, retain: false))
        let messages = try await run.collector.wait("the dead letter") { $0.contains { $0.topic == "gateway/dl-device-1/dead-letter" } }
        let letter = try #require(messages.first { $0.topic == "gateway/dl-device-1/dead-letter" })
        #expect(letter.payload == garbage)
        #expect(!letter.retain)
        let properties = Dictionary(letter.properties.userProperties.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(properties["code"] == "invalidPayload")
        #expect(properties["cmError"] == "107")
        #expect(properties["stream"] == "motion")
        #expect(properties["sourceTopic"] == "wearables/dl-device-1/motion")
        #expect(properties["detail"]?.isEmpty == false)
        try await run.waitForMetric("gateway_dead_letters_total", atLeast: 1)

        let fleet = try await Self.waitFor(base.appendingPathComponent("api/fleet"), timeout: 20, "the device's error in /api/fleet") {
            $0.text.contains(#""deviceId":"dl-device-1""#) && $0.text.contains(#""errors":"#)
        }
        #expect(fleet.contentType == "application/json")
        let page = try #require(await Self.get(base))
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html") && page.text.contains("/fleet.js"))
        #expect(await Self.get(base.appendingPathComponent("fleet.js"))?.text.contains("EventSource") == true)
        await device.shutdown()
        try await run.stop()
    }
}
