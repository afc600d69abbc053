import BrokerTestSupport
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The HTTP server under load, through the real Hummingbird server: a 10,000-device fleet
/// answered completely and in time without holding up the view's feeders, and `/metrics`
/// alone on its own listener (`http.metricsListen`).
@Suite(.serialized) struct HTTPLoadTests {
    /// Polls `url` until it answers at all; fails after `timeout` seconds.
    private static func waitForListener(_ url: URL, timeout: Double) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if await HTTPAnswer.get(url) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("nothing answered on \(url) within \(timeout) s")
    }

    /// What the updater thread saw while it fed the view.
    private struct UpdaterLog {
        var completions: [ContinuousClock.Instant] = []
        var stop = false
    }

    @Test("/api/fleet with 10,000 devices: complete, within 1 s, within the byte budget; the view's feeder is not held up meanwhile")
    func tenThousandDevices() async throws {
        let registry = PrometheusCollectorRegistry()
        let budget = GatewayConfiguration().http.fleetViewBytes
        let fleet = FleetView(outboundRoot: "gateway", maxBytes: budget, metricsFactory: PrometheusMetricsFactory(registry: registry))
        // Hours of a busy fleet: every device with its model, presence and 60 swings of 500
        // bytes, 300 MB of payloads in all; the budget keeps the newest 32 MiB (the same
        // arrays are shared, so the test itself stays small).
        let availability = Array(#"{"model":"Watch7,5","os":"11.2","features":["accelerometer","deviceMotion","submersion"],"date":1767225600.5}"#.utf8)
        let connection = Array(#"{"state":"connected","date":1767225600.5}"#.utf8)
        let swing = Array((#"{"contact":true,"timeToContact":0.153,"pad":""# + String(repeating: "x", count: 440) + #""}"#).utf8)
        let ids = (0..<10_000).map { String(format: "watch-%05d", $0) }
        for id in ids {
            fleet.observe(OutboundMessage(topic: "gateway/\(id)/availability", payload: availability))
            fleet.observe(OutboundMessage(topic: "gateway/\(id)/connection", payload: connection))
        }
        for _ in 0..<60 {
            for id in ids { fleet.observe(OutboundMessage(topic: "gateway/\(id)/swing", payload: swing)) }
        }
        #expect(fleet.bytes <= budget)

        let port = try TestBroker.freePort()
        let endpoints = HTTPEndpoints(
            metrics: { registry.emitToBuffer() }, liveness: { HealthReport(problems: []) }, readiness: { HealthReport(problems: []) },
            fleet: fleet)
        let group = ServiceGroup(
            services: [HTTPService(address: HTTPListenAddress(host: "127.0.0.1", port: port), endpoints: endpoints, logger: Logger(label: "http-load"))],
            logger: Logger(label: "http-load"))
        let server = Task { try await group.run() }
        defer { server.cancel() }
        let base = URL(string: "http://127.0.0.1:\(port)")!
        try await Self.waitForListener(base.appendingPathComponent("metrics"), timeout: 20)

        // A feeder like the workers: a thread of its own updating the view as fast as it can,
        // noting when each update returned.
        let log = Mutex(UpdaterLog())
        let updates = (0..<64).map { OutboundMessage(topic: "gateway/\(ids[$0 * 150])/connection", payload: connection) }
        let updater = Thread {
            var next = 0
            while true {
                fleet.observe(updates[next % updates.count])
                next += 1
                let now = ContinuousClock.now
                if log.withLock({ $0.completions.append(now); return $0.stop }) { return }
            }
        }
        updater.start()
        defer { log.withLock { $0.stop = true } }

        let start = ContinuousClock.now
        let answer = try #require(await HTTPAnswer.get(base.appendingPathComponent("api/fleet"), timeout: 30))
        let end = ContinuousClock.now
        log.withLock { $0.stop = true }
        let elapsed = end - start

        #expect(answer.status == 200 && answer.contentType == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 10_000, "every device in the answer")
        #expect(devices.allSatisfy { ($0["latest"] as? [String: Any])?.keys.sorted() == ["availability", "connection", "swing"] })
        #expect(answer.body.count <= budget, "the answer is bounded by http.fleetViewBytes")
        // 1 s is the promise; a release build answers in a fraction of it, this debug build
        // (encoding -Onone) in about a third on 2 loaded cores.
        #expect(elapsed < .seconds(1), "answered in \(elapsed)")

        // The feeder kept going while the answer was encoded and sent: it completed updates
        // during the request, and no single wait of it spanned most of the request (an encode
        // under the view's lock would make one wait about as long as the whole answer). The
        // bound is half the request so a descheduled thread on a loaded machine does not fail it.
        let during = log.withLock { $0.completions.filter { $0 >= start && $0 <= end } }
        let longestGap = zip(during, during.dropFirst()).map { $1 - $0 }.max() ?? elapsed
        #expect(during.count >= 100, "the feeder completed \(during.count) updates during the \(elapsed) request")
        #expect(longestGap < elapsed / 2, "the feeder's longest wait was \(longestGap) of a \(elapsed) request")

        let metrics = PrometheusText(text: String(decoding: registry.emitToBuffer(), as: UTF8.self))
        #expect(metrics.sum("gateway_fleet_view_dropped_total", labels: ["what": "history"]) > 0, "evicted plot points are counted")
        #expect(metrics.sum("gateway_fleet_view_bytes") <= Double(budget))
        await group.triggerGracefulShutdown()
        try await server.value
    }

    @Test("http.metricsListen serves /metrics alone; the main listener keeps everything")
    func metricsListener() async throws {
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        let mainPort = try TestBroker.freePort()
        let metricsPort = try TestBroker.freePort()
        configuration.http.listen = HTTPListenAddress(host: "127.0.0.1", port: mainPort)
        configuration.http.metricsListen = HTTPListenAddress(host: "127.0.0.1", port: metricsPort)
        let run = try await GatewayRun.start(broker, configuration: configuration)
        let metricsBase = URL(string: "http://127.0.0.1:\(metricsPort)")!
        let mainBase = URL(string: "http://127.0.0.1:\(mainPort)")!
        try await Self.waitForListener(metricsBase.appendingPathComponent("metrics"), timeout: 20)

        let metrics = try #require(await HTTPAnswer.get(metricsBase.appendingPathComponent("metrics")))
        #expect(metrics.status == 200 && metrics.contentType.hasPrefix("text/plain; version=0.0.4"))
        #expect(metrics.text.contains("# TYPE mqtt_connected gauge"))
        for path in ["api/fleet", "api/events", "", "fleet.js", "healthz", "readyz"] {
            #expect(await HTTPAnswer.get(metricsBase.appendingPathComponent(path))?.status == 404, "/\(path) on the metrics listener")
        }
        for path in ["metrics", "api/fleet", "", "healthz"] {
            #expect(await HTTPAnswer.get(mainBase.appendingPathComponent(path))?.status == 200, "/\(path) on the main listener")
        }
        try await run.stop()
    }
}
