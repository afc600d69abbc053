import BrokerTestSupport
import Foundation
import MQTTTransport
import RecorderStore
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The event history end to end: an in-process gateway on a real mosquitto writes the derived
/// events it publishes into the recorder's SQLite file, and `GET /api/devices/{id}/events`
/// reads them back; a store that stops answering costs history rows (counted, shown in
/// `/readyz`), never frames.
@Suite(.serialized) struct EventHistoryTests {
    private static func json(_ data: Data) -> [String: Any] { (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:] }
    private static func json(_ message: MQTTMessage) -> [String: Any] { json(Data(message.payload)) }

    /// Polls `url` until `predicate` holds for its JSON answer; fails after `timeout` seconds.
    @discardableResult
    private static func waitFor(_ url: URL, timeout: Double, _ what: String, until predicate: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last = ""
        while ContinuousClock.now < deadline {
            if let answer = await HTTPAnswer.get(url) {
                last = "\(answer.status) \(answer.text.prefix(400))"
                if predicate(json(answer.body)) { return json(answer.body) }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("timed out after \(timeout) s waiting for \(what); last answer: \(last)")
    }

    private static func start(_ broker: TestBroker, _ change: (inout GatewayConfiguration) -> Void = { _ in }) async throws -> (GatewayRun, URL) {
        var configuration = try GatewayHarness.configuration(broker: broker)
        let port = try TestBroker.freePort()
        configuration.http.listen = HTTPListenAddress(host: "127.0.0.1", port: port)
        change(&configuration)
        let run = try await GatewayRun.start(broker, configuration: configuration)
        return (run, URL(string: "http://127.0.0.1:\(port)")!)
    }

    private static func events(_ base: URL, _ device: String, _ query: String) -> URL {
        URL(string: "\(base.absoluteString)/api/devices/\(device)/events?\(query)")!
    }

    @Test("a dive and a swing end up in the history; the endpoint returns them, paged, with the published ids")
    func diveAndSwing() async throws {
        let broker = try await TestBroker.started()
        let (run, base) = try await Self.start(broker)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        let dive = DiveScenario.snorkel(deviceId: "hist-diver")
        for frame in dive.frames(startDate: Date().timeIntervalSince1970 - 120) {
            try await device.send(MQTTMessage(topic: frame.topic(), payload: frame.payload, qos: frame.qos, retain: frame.retain, properties: .init(contentType: "application/json")))
        }
        let swings = SwingFleetSession(count: 1, swings: 3, prefix: "hist-batter")
        try await swings.begin(with: device, availability: run.collector)
        for departure in swings.departures { try await device.send(departure.message) }
        try await swings.end(with: device)
        #expect(await device.flush(timeout: 60))
        let batter = swings.devices[0].id
        let published = try await run.collector.wait(timeout: 60, "a dive summary and the swings") { messages in
            messages.contains { $0.topic == "gateway/hist-diver/submersion/dive" }
                && messages.filter { $0.topic == "gateway/\(batter)/swing" }.count >= swings.devices[0].expected.count
        }
        let diveID = try #require(published.first { $0.topic == "gateway/hist-diver/submersion/dive" }.flatMap { Self.json($0)["eventId"] as? String })
        let swingIDs = published.filter { $0.topic == "gateway/\(batter)/swing" }.compactMap { Self.json($0)["eventId"] as? String }

        let dives = try await Self.waitFor(Self.events(base, "hist-diver", "family=submersion/dive"), timeout: 30, "the dive in the history") {
            (($0["events"] as? [[String: Any]]) ?? []).contains { $0["eventId"] as? String == diveID }
        }
        let stored = try #require((dives["events"] as? [[String: Any]])?.first)
        #expect(stored["family"] as? String == "submersion/dive")
        #expect((stored["payload"] as? [String: Any])?["endReason"] as? String == "surfaced")
        #expect(((stored["payload"] as? [String: Any])?["date"] as? Double).map { abs($0 - (stored["eventTime"] as? Double ?? 0)) < 0.001 } == true)
        // The depth states are kept too; the water temperature (per measurement) is not by default.
        let all = try await Self.waitFor(Self.events(base, "hist-diver", "limit=1000"), timeout: 30, "the depth states") {
            (($0["events"] as? [[String: Any]]) ?? []).contains { $0["family"] as? String == "submersion/depth-state" }
        }
        let families = Set(((all["events"] as? [[String: Any]]) ?? []).compactMap { $0["family"] as? String })
        #expect(!families.contains("submersion/temperature"))
        #expect(published.contains { $0.topic == "gateway/hist-diver/submersion/temperature" }, "temperatures were published, only not kept")

        // The swings, a page of one at a time, newest first, following `next`.
        try await Self.waitFor(Self.events(base, batter, "family=swing&limit=1000"), timeout: 30, "every swing in the history") {
            (($0["events"] as? [[String: Any]]) ?? []).count == swingIDs.count
        }
        var paged: [String] = []
        var after = ""
        for _ in 0...swingIDs.count {
            let answer = try #require(await HTTPAnswer.get(Self.events(base, batter, "family=swing&limit=1\(after)")))
            let page = Self.json(answer.body)
            paged += ((page["events"] as? [[String: Any]]) ?? []).compactMap { $0["eventId"] as? String }
            guard let next = page["next"] as? String else { break }
            after = "&after=\(next)"
        }
        #expect(Set(paged) == Set(swingIDs) && paged.count == swingIDs.count)

        // Bounded and checked.
        #expect(await HTTPAnswer.get(Self.events(base, batter, "limit=5000"))?.status == 400)
        #expect(await HTTPAnswer.get(Self.events(base, batter, "family=nope"))?.status == 400)
        let metrics = try #require(await HTTPAnswer.get(base.appendingPathComponent("metrics")))
        #expect(PrometheusText(text: metrics.text).sum("gateway_history_rows_written_total") >= Double(swingIDs.count + 1))
        await device.shutdown()
        try await run.stop()
    }

    @Test("a store that stops answering drops history rows, counted and shown in /readyz, while every frame is processed at once")
    func storeFailureDropsNotBlocks() async throws {
        let broker = try await TestBroker.started()
        let (run, base) = try await Self.start(broker) { configuration in
            configuration.history.bufferBytes = 65_536
        }
        let database = try #require(run.configuration.recorder.database)
        try await Self.waitFor(base.appendingPathComponent("readyz"), timeout: 20, "/readyz 200") { $0["status"] as? String == "ok" }
        // Another process takes SQLite's write lock and keeps it: every history write waits
        // out its busy timeout (10 s), then fails.
        let locker = try SQLiteWriteLock(path: database)
        defer { locker.release() }

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        // 600 presence changes: 600 connection events, about 150 KB, over twice the buffer.
        let frames = 600
        let start = Date().timeIntervalSince1970
        let began = ContinuousClock.now
        for n in 0..<frames {
            let payload = #"{"state":"\#(n % 2 == 0 ? "online" : "offline")","date":\#(start + Double(n) * 0.001)}"#
            try await device.send(MQTTMessage(topic: "wearables/hist-flap-\(n % 3)/status", payload: Array(payload.utf8), qos: .atLeastOnce, retain: false))
        }
        #expect(await device.flush(timeout: 60))
        try await run.collector.wait(timeout: 30, "every frame processed") { messages in
            (PrometheusText.latest(in: messages)?.sum("gateway_frames_processed_total") ?? 0) >= Double(frames)
        }
        #expect(ContinuousClock.now - began < .seconds(10), "frames went on while the history's store was stuck")
        let ready = try await Self.waitFor(base.appendingPathComponent("readyz"), timeout: 30, "/readyz naming the dropped events") {
            (($0["history"] as? [String: Any])?["dropped"] as? Int ?? 0) > 0
        }
        #expect(ready["status"] as? String == "ok", "dropping history rows does not make the gateway unready")
        let metrics = try #require(await HTTPAnswer.get(base.appendingPathComponent("metrics")))
        let dropped = PrometheusText(text: metrics.text).sum("gateway_history_dropped_total")
        #expect(dropped > 0 && dropped < Double(frames))

        // The lock let go: what was buffered is written, and the failure is over.
        locker.release()
        let recovered = try await Self.waitFor(base.appendingPathComponent("readyz"), timeout: 40, "the history writing again") {
            let history = $0["history"] as? [String: Any]
            return history?["lastError"] == nil && history?["bufferedBytes"] as? Int == 0 && history?["status"] as? String == "dropping"
        }
        #expect((recovered["history"] as? [String: Any])?["dropped"] as? Int == Int(dropped))
        // Every kept event published is either written or counted as dropped.
        let kept = run.collector.messages.filter { message in
            message.topic.hasPrefix("gateway/hist-flap-") && GatewayConfiguration.History.discreteFamilies.contains { message.topic.hasSuffix("/" + $0) }
        }.count
        #expect(kept >= frames)
        let text = PrometheusText(text: try #require(await HTTPAnswer.get(base.appendingPathComponent("metrics"))).text)
        #expect(text.sum("gateway_history_rows_written_total") + dropped == Double(kept))
        await device.shutdown()
        try await run.stop()
    }
}

extension EventHistoryTests {
    @Test("kill -9 while the history's writer waits for its store: the frames' records were held, so after a restart the history holds every presence change once")
    func killLosesNothing() async throws {
        let broker = try await TestBroker.started()
        let stream = PresenceStream(device: "hist-crash-1", count: 1_000)
        let counter = PresenceCounter(stream)
        let observer = try await counter.observe(broker)
        let (metricsObserver, metrics) = try await TestClients.observer(broker, subscribedTo: ["gateway/metrics"])
        let data = broker.directory.appendingPathComponent("gateway-data")
        let launch = {
            try GatewayProcess(
                broker: broker,
                arguments: [
                    "--set", "mqtt.clientId=gw-hist-crash", "--set", "registry.file=null", "--set", "metrics.publishInterval=0.2",
                    // Device state in memory: no snapshot says a frame was applied, so every
                    // record kept is replayed and derived again (docs/history.md, kill -9).
                    "--set", "state.path=null",
                ],
                dataDirectory: data)
        }
        let first = try launch()
        try await first.waitUntilSubscribed()
        // The history's writer is kept waiting (SQLite's lock, taken by another process, within
        // its 10 s busy timeout), so the frames' events sit in its buffer when the process dies.
        let locker = try SQLiteWriteLock(path: data.appendingPathComponent("recorder.sqlite").path)
        defer { locker.release() }
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await stream.publish(with: device)
        try await counter.wait(forDistinct: stream.count, timeout: 8)
        // Every frame processed and its output delivered; one more metrics interval for the
        // broker's acknowledgements: nothing but the history holds their journal records now.
        @Sendable func value(_ name: String, _ messages: [MQTTMessage]) -> Double { PrometheusText.latest(in: messages)?.sum(name) ?? 0 }
        let processed = try await metrics.wait(timeout: 8, "all frames processed") { value("gateway_frames_processed_total", $0) >= Double(stream.count) }
        try await metrics.wait(timeout: 8, "the next metrics") { $0.count > processed.count }
        first.signal(SIGKILL)
        _ = try await first.waitForExit(timeout: 10)
        locker.release()

        let second = try launch()
        // The replayed frames' events reach the store (the first run wrote none).
        try await metrics.wait(timeout: 60, "the replayed frames' events written") { messages in
            value("gateway_history_rows_written_total", messages) + value("gateway_history_duplicate_rows_total", messages) >= Double(stream.count)
        }
        #expect(second.log.contains("replaying"), "no frame was kept in the journal for the history; log:\n\(second.log)")
        // A graceful stop writes what the history still buffers.
        second.signal(SIGTERM)
        #expect(try await second.waitForExit(timeout: 40) == 0, "log:\n\(second.log)")

        let store = try RecorderDatabase(path: data.appendingPathComponent("recorder.sqlite").path)
        var dates: [Double] = []
        var cursor: EventHistoryCursor?
        while true {
            let page = try await store.events(of: DeviceID("hist-crash-1")!, family: "connection", from: -.infinity, to: .infinity, after: cursor, limit: 1000)
            if page.isEmpty { break }
            dates += page.map(\.eventTime)
            cursor = page.last?.cursor
        }
        #expect(dates.count == stream.count, "\(stream.count - dates.count) presence changes missing from the history")
        #expect(Set(dates).count == dates.count, "a replayed event was written twice")
        await device.shutdown()
        await observer.shutdown()
        await metricsObserver.shutdown()
    }
}

/// A process holding SQLite's write lock on a database (`BEGIN EXCLUSIVE` in WAL mode: readers
/// go on, writers wait for their busy timeout and fail) until ``release()``; Python's sqlite3.
private final class SQLiteWriteLock: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()

    init(path: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30); c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.read()",
            path,
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Synchronised on the child's own word that it holds the lock.
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("locked") else { throw TestFailure("the SQLite lock holder did not start") }
    }

    /// Ends the transaction (the child exits); idempotent.
    func release() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
