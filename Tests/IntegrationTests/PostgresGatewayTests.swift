import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import RecorderStore
import TelemetryCore
import TelemetryGateway
import Testing

/// The real gateway on `store.backend: postgres` against a real mosquitto and a real PostgreSQL:
/// recorder chunks stored there, queries answered from there (by another gateway than the one
/// that stored them), and a server stopped mid-stream and started again losing nothing.
@Suite("Gateway on the PostgreSQL store", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresGatewayTests {
    private static let device = "watch-pg-1"
    /// Half an hour ago, on a minute boundary: inside the retention window.
    private static let start = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 1800

    /// `count` chunks of 150 samples at 50 Hz from ``start``, unique accelerations per sample.
    private static func chunks(_ count: Int) -> [RecordedAccelerometerChunk] { RecorderHistory.chunks(count, from: start, identifier: 77) }

    private static let hello = #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.1","app":"com.example.tremor","authorization":"authorized"}"#

    private static func configuration(_ broker: TestBroker, url: String) throws -> GatewayConfiguration {
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.store.backend = .postgres
        configuration.store.url = url
        configuration.recorder.queryChunkSamples = 500
        return configuration
    }

    private static func publish(_ chunks: some Sequence<RecordedAccelerometerChunk>, from device: MQTTClient) async throws {
        for chunk in chunks {
            var writer = JSONWriter()
            chunk.write(to: &writer)
            try await device.send(MQTTMessage(topic: "wearables/\(Self.device)/recorder/accelerometer", payload: writer.bytes, qos: .atLeastOnce))
        }
        #expect(await device.flush(timeout: 30))
    }

    /// Every sample a query over the whole range answers, in order.
    private static func queryAll(_ broker: TestBroker) async throws -> [RecordedAccelerometerSample] {
        let requester = try await RecorderRequester.connect(broker)
        defer { Task { await requester.shutdown() } }
        let answers = try await requester.ask(Self.device, #"{"from":\#(start - 60),"to":\#(start + 3600)}"#, correlation: "all")
        let objects = answers.map(RecorderRequester.object)
        #expect(objects.last?["final"] as? Bool == true)
        #expect(objects.last?["error"] == nil, "\(objects.last ?? [:])")
        return try RecorderHistory.samples(of: answers)
    }

    /// A fresh database and broker, and a gateway on them that stored (or found stored) every
    /// sample of `chunks` after the device's hello; the gateway is still running.
    private static func storeHistory(_ chunks: [RecordedAccelerometerChunk]) async throws -> (TestBroker, String, GatewayRun) {
        let settings = try await TestPostgres.makeDatabase()
        let url = "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
        let broker = try await TestBroker.started()
        let writer = try await GatewayRun.start(broker, configuration: try Self.configuration(broker, url: url))
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.send(MQTTMessage(topic: "wearables/\(Self.device)/hello", string: Self.hello, qos: .atLeastOnce, retain: true))
        try await Self.publish(chunks, from: device)
        await device.shutdown()
        // Stored, or found stored by the retry of a write that committed after its deadline (on a
        // busy server the first writes can outlive it).
        try await Self.waitUntilAllStored(writer, samples: Double(chunks.reduce(0) { $0 + $1.samples.count }), timeout: 60)
        return (broker, url, writer)
    }

    @Test("chunks stored in PostgreSQL by one gateway are answered by another with no files of its own")
    func storesAndAnswersFromPostgres() async throws {
        let chunks = Self.chunks(12)
        let (broker, url, writer) = try await Self.storeHistory(chunks + chunks[3..<5])  // two chunks twice
        try await writer.waitForMetric("gateway_recorder_duplicate_samples_total", atLeast: 300)
        try await writer.stop()

        // Another gateway, other client ids and journal, the same database.
        var configuration = try Self.configuration(broker, url: url)
        configuration.recorder.database = nil
        let reader = try await GatewayRun.start(broker, configuration: configuration)
        let answered = try await Self.queryAll(broker)
        let expected = chunks.flatMap(\.samples)
        #expect(answered.count == expected.count)
        #expect(answered == expected, "the answer is exactly the stored samples, in order (first difference at \(Array(zip(answered, expected)).firstIndex { $0.0 != $0.1 }.map(String.init) ?? "none"))")
        try await reader.stop()
    }

    @Test("an instance whose wall clock runs 40 days ahead prunes on the store's clock: the history the others keep survives its pruning")
    func retentionOnTheStoresClock() async throws {
        let (broker, url, writer) = try await Self.storeHistory(Self.chunks(12))

        // Another instance on the same store, its wall clock 40 days ahead: on its own clock the
        // whole history is past recorder.retention (36 h). It prunes once at its start and then
        // samples the store's statistics.
        var configuration = try Self.configuration(broker, url: url)
        configuration.recorder.database = nil
        let ahead = ManualGatewayClock(wallTime: Date().timeIntervalSince1970 + 40 * 86_400)
        let skewed = try await GatewayRun.start(broker, configuration: configuration, clock: ahead)
        // The gauge is 0 until the pass reports the store's statistics; on the instance's own
        // clock the pass would drop every partition and it would stay 0.
        let kept = try await Self.pollMetrics(skewed, timeout: 30) { $0.sum("gateway_recorder_stored_samples") >= 1800 }
        #expect(kept, "after the skewed instance's pruning pass the store holds \(skewed.gateway.metrics.sum("gateway_recorder_stored_samples")) samples")
        #expect(skewed.gateway.metrics.sum("gateway_recorder_samples_pruned_total") == 0)
        #expect(skewed.gateway.metrics.sum("gateway_recorder_stored_samples") == 1800)
        try await skewed.stop()

        // The instance with the right clock still answers every sample.
        let answered = try await Self.queryAll(broker)
        #expect(answered.count == 1800)
        try await writer.stop()
    }

    @Test("PostgreSQL stopped mid-stream (immediate) and started again: /readyz 503 naming store.url meanwhile, every sample stored in the end")
    func survivesAStoreOutage() async throws {
        let server = try await PrivatePostgres.start()
        defer { server.remove() }
        let broker = try await TestBroker.started()
        let port = try TestBroker.freePort()
        var configuration = try Self.configuration(broker, url: server.url)
        configuration.http.listen = HTTPListenAddress(host: "127.0.0.1", port: port)
        let run = try await GatewayRun.start(broker, configuration: configuration)
        let chunks = Self.chunks(30)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.send(MQTTMessage(topic: "wearables/\(Self.device)/hello", string: Self.hello, qos: .atLeastOnce, retain: true))

        try await Self.publish(chunks[0..<10], from: device)
        try await run.waitForMetric("gateway_recorder_samples_stored_total", atLeast: 1500)
        try await server.stop()
        try await Self.publish(chunks[10..<20], from: device)
        // Every frame is processed while the store is away: the chunks are held, not dropped.
        try await run.waitForMetric("gateway_frames_processed_total", atLeast: 21)
        try await run.waitForMetric("gateway_recorder_store_failures_total", atLeast: 1)
        let unready = try await Self.waitForReadiness(port: port, status: 503)
        #expect(unready.contains("store.url"), "\(unready)")
        #expect(run.gateway.metrics.sum("gateway_recorder_chunks_held") >= 1)

        try await server.restart()
        try await Self.publish(chunks[20..<30], from: device)
        await device.shutdown()
        // Stored or found stored: a write that outlived its deadline may have committed anyway,
        // and its retry then counts its samples as duplicates (lateCommitCountedOnce).
        try await Self.waitUntilAllStored(run, samples: 4500, timeout: 90)
        _ = try await Self.waitForReadiness(port: port, status: 200)
        #expect(run.gateway.metrics.sum("gateway_recorder_store_retries_total") >= 1)
        let answered = try await Self.queryAll(broker)
        let expected = chunks.flatMap(\.samples)
        #expect(answered.count == expected.count, "nothing lost, nothing repeated")
        #expect(answered == expected, "in order, exact (first difference at \(Array(zip(answered, expected)).firstIndex { $0.0 != $0.1 }.map(String.init) ?? "none"))")
        try await run.stop()
    }

    @Test("a chunk write that commits after its deadline (a table lock): its retry finds the samples stored, counts them as duplicates, nothing stored twice")
    func lateCommitCountedOnce() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let url = "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker, configuration: try Self.configuration(broker, url: url))
        let chunks = Self.chunks(6)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.send(MQTTMessage(topic: "wearables/\(Self.device)/hello", string: Self.hello, qos: .atLeastOnce, retain: true))
        try await Self.publish(chunks[0..<3], from: device)
        try await Self.waitUntilAllStored(run, samples: 450, timeout: 60)

        // The next write waits for the lock past its 2 s deadline and commits once it is released.
        // The lock goes as soon as the deadline is counted: the retry comes 500 ms after the
        // failure (RecorderRetryQueue's first backoff), so the late write, waiting on the lock
        // already, commits first and the retry finds its samples. (Released after the retry had
        // started, both waited on the lock and either could insert first.)
        let lock = try await TestTableLock.acquire(settings, table: "recorder_device")
        try await Self.publish(chunks[3..<6], from: device)
        try await Self.waitForCounter(run, "gateway_recorder_store_failures_total", atLeast: 1, timeout: 30)
        try await lock.release(terminatingWaiters: false)
        try await run.waitForMetric("gateway_recorder_store_retries_total", atLeast: 1, timeout: 30)
        await device.shutdown()

        try await Self.waitUntilAllStored(run, samples: 900, timeout: 60)
        let metrics = run.gateway.metrics
        #expect(metrics.sum("gateway_recorder_duplicate_samples_total") >= 150, "the late write committed before its retry")
        #expect(metrics.sum("gateway_recorder_samples_stored_total") < 900, "the stored counter alone never reaches every sample")
        let answered = try await Self.queryAll(broker)
        let expected = chunks.flatMap(\.samples)
        #expect(answered.count == expected.count, "nothing lost, nothing twice")
        #expect(answered == expected)
        try await run.stop()
    }

    /// Waits until no chunk is held and `samples` were stored or found stored already (a retry
    /// of a write that committed after its deadline counts its samples as duplicates; this test's
    /// device sends every sample once).
    private static func waitUntilAllStored(_ run: GatewayRun, samples: Double, timeout: Double) async throws {
        var accounted = 0.0
        var held = 0.0
        let done = try await pollMetrics(run, timeout: timeout) { metrics in
            accounted = metrics.sum("gateway_recorder_samples_stored_total") + metrics.sum("gateway_recorder_duplicate_samples_total")
            held = metrics.sum("gateway_recorder_chunks_held")
            return accounted >= samples && held == 0
        }
        if done { return }
        throw TestFailure("\(accounted) of \(samples) samples stored or found stored, \(held) chunks held after \(timeout) s")
    }

    /// Polls the gateway's own metrics (not their MQTT publication, which lags by up to its
    /// interval) until counter `name` reaches `target`.
    private static func waitForCounter(_ run: GatewayRun, _ name: String, atLeast target: Double, timeout: Double) async throws {
        if try await pollMetrics(run, timeout: timeout, until: { $0.sum(name) >= target }) { return }
        throw TestFailure("\(name) did not reach \(target) within \(timeout) s")
    }

    /// Checks snapshots of the gateway's own metrics every 10 ms until `predicate` holds (true)
    /// or `timeout` seconds passed (false).
    private static func pollMetrics(_ run: GatewayRun, timeout: Double, until predicate: (PrometheusText) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if predicate(run.gateway.metrics) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Polls `/readyz` until it answers `status`; returns its body.
    private static func waitForReadiness(port: Int, status: Int, timeout: Double = 30) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last = "no answer"
        while ContinuousClock.now < deadline {
            if let answer = await HTTPAnswer.get(URL(string: "http://127.0.0.1:\(port)/readyz")!) {
                if answer.status == status { return answer.text }
                last = "\(answer.status): \(answer.text)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("/readyz did not answer \(status) within \(timeout) s; last: \(last)")
    }
}

/// A PostgreSQL of the test's own (scripts/postgres.sh), to stop and start without disturbing
/// the tests sharing WG_TEST_POSTGRES_URL's server.
struct PrivatePostgres: Sendable {
    let directory: String
    let url: String

    private static var script: URL {
        let root = ProcessInfo.processInfo.environment["WG_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: root).appendingPathComponent("scripts/postgres.sh")
    }

    private static func run(_ arguments: [String]) async throws -> String {
        let (termination, output) = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [script.path] + arguments)
        guard case .exited(0) = termination else { throw TestFailure("scripts/postgres.sh \(arguments.joined(separator: " ")) failed: \(output)") }
        return output
    }

    static func start() async throws -> PrivatePostgres {
        let output = try await run(["start"])
        let fields = output.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count >= 3, let url = fields.last, url.hasPrefix("postgres://") else { throw TestFailure("scripts/postgres.sh start printed: \(output)") }
        return PrivatePostgres(directory: fields[fields.count - 3], url: url)
    }

    /// Stops the server at once, like a crash (`pg_ctl stop -m immediate`).
    func stop() async throws { _ = try await Self.run(["stop", directory]) }
    /// Starts it again on its port.
    func restart() async throws { _ = try await Self.run(["restart", directory]) }
    /// Stops it and removes its files (a failing test's clean-up waits for nothing).
    func remove() {
        _ = try? ChildProcess(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, "remove", directory]).waitUntilExit(timeout: 30)
    }
}
