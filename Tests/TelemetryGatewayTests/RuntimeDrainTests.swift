@testable import GatewayJournal
import Foundation
import Logging
import MQTTTransport
import Prometheus
import ServiceLifecycle
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The whole runtime (every service `buildGateway` lists) on connections without a broker: the
/// shutdown's order, the drain of what was queued, and the journal's hold and release of frames
/// whose outputs the broker did or did not acknowledge. No broker, no waiting on timers.
@Suite("Runtime without a broker: drain order and the journal")
struct RuntimeDrainTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func configuration(journal: String) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.registryFile = nil
        configuration.capabilitiesFile = repository.appendingPathComponent("config/capabilities.yml").path
        configuration.journal.path = journal
        configuration.journal.sizeBytes = 1 << 20
        configuration.state.path = nil
        configuration.recorder.database = nil
        configuration.http.listen = nil
        configuration.pipeline.workers = 2
        // Only the final publish after the drain: none on a timer while the test runs.
        configuration.metrics.publishInterval = 3600
        return configuration
    }

    static func journalPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("runtime-\(UUID().uuidString)/journal.bin").path
    }

    /// Runs a gateway on `broker` until `body` returns, then shuts it down gracefully.
    static func run(
        _ configuration: GatewayConfiguration, on broker: ScriptedBroker, report: ShutdownReport = ShutdownReport(),
        log: ServiceShutdownLog = ServiceShutdownLog(), whileStopping: () async throws -> Void = {}, _ body: () async throws -> Void
    ) async throws {
        try FileManager.default.createDirectory(
            atPath: (configuration.journal.path! as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let logger = log.logger(label: "runtime-test", level: .error)
        let registry = PrometheusCollectorRegistry()
        let policy = try AccessPolicyLoader.load(configuration.accessPolicyFiles).policy
        let group = try buildGateway(
            configuration: configuration, logger: logger, metricsFactory: PrometheusMetricsFactory(registry: registry), prometheus: registry,
            accessPolicy: policy, shutdownSignals: [], shutdownReport: report, clock: ManualGatewayClock(wallTime: 1_800_000_000),
            connections: broker.connections)
        let running = Task { try await group.run() }
        // Online is announced once the subscriber has subscribed: from then on frames are heard.
        await broker.wait { $0.contains { if case .sent("gateway/status", let payload) = $0 { payload.contains(#""online""#) } else { false } } }
        try await body()
        await group.triggerGracefulShutdown()
        try await whileStopping()
        try await running.value
    }

    static func status(of device: String) -> MQTTMessage {
        MQTTMessage(topic: "wearables/\(device)/status", payload: Array(#"{"state":"online"}"#.utf8), qos: .atLeastOnce, retain: false)
    }

    static let devices = (1...12).map { "drain-\($0)" }

    @Test("shutdown: receiving stops first, every queued frame is processed and published, then the final metrics, then offline, flush, disconnect")
    func drainOrder() async throws {
        let broker = ScriptedBroker(acknowledgeAtOnce: true)
        let log = ServiceShutdownLog()
        let path = Self.journalPath()
        // The broker stops taking the devices' outputs, so the frames are still queued when the
        // shutdown begins; it takes them again only once the group turns to the workers' shutdown.
        // So whatever stops before the workers (the subscriber, and the metrics if they were
        // listed after the workers) has stopped before the first output: a final metrics
        // publish that does not wait for the drain comes before it, every time.
        try await Self.run(
            Self.configuration(journal: path), on: broker, log: log,
            whileStopping: {
                await log.waitForShutdown(of: "ShardWorkerService")
                broker.releaseSends()
            }
        ) {
            broker.holdSends { $0.hasSuffix("/connection") }
            for device in Self.devices { #expect(broker.deliver(Self.status(of: device))) }
        }
        let timeline = broker.timeline
        let subscriberStopped = try #require(timeline.firstIndex(of: .subscriberShutDown))
        let firstOutput = try #require(timeline.firstIndex { if case .sent(let topic, _) = $0 { topic.hasSuffix("/connection") } else { false } })
        #expect(subscriberStopped < firstOutput, "the frames were still queued when receiving stopped")
        let outputs = Self.devices.map { device in timeline.firstIndex { if case .sent("gateway/\(device)/connection", _) = $0 { true } else { false } } }
        #expect(outputs.allSatisfy { $0 != nil }, "every frame queued before the shutdown was processed and its output published")
        let finalMetrics = try #require(timeline.lastIndex { if case .sent("gateway/metrics", _) = $0 { true } else { false } })
        #expect(outputs.compactMap { $0 }.allSatisfy { $0 < finalMetrics }, "the final metrics come after the drain")
        #expect(subscriberStopped < finalMetrics)
        let offline = try #require(timeline.lastIndex { if case .sent("gateway/status", let payload) = $0 { payload.contains(#""offline""#) } else { false } })
        #expect(finalMetrics < offline)
        #expect(Array(timeline.suffix(from: offline).dropFirst()) == [.flushed(complete: true), .publisherShutDown])

        // Every output acknowledged: nothing is left for the next start.
        let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
        #expect(journal.takeRecovered().isEmpty)
    }

    @Test("outputs never acknowledged keep their frames in the journal; the next run replays them and releases them")
    func unacknowledgedFramesStay() async throws {
        let path = Self.journalPath()
        let silent = ScriptedBroker(acknowledgeAtOnce: false)
        let report = ShutdownReport()
        try await Self.run(Self.configuration(journal: path), on: silent, report: report) {
            for device in Self.devices { silent.deliver(Self.status(of: device)) }
            await silent.wait { steps in
                Self.devices.allSatisfy { device in steps.contains { if case .sent("gateway/\(device)/connection", _) = $0 { true } else { false } } }
            }
        }
        #expect(silent.timeline.contains(.flushed(complete: false)))
        #expect(!report.isComplete, "the shutdown reports what the broker did not acknowledge")

        let next = ScriptedBroker(acknowledgeAtOnce: true)
        try await Self.run(Self.configuration(journal: path), on: next) {}
        // Nothing was delivered to the second run: what it published for the devices is the replay's.
        let topics = next.sentTopics
        #expect(Self.devices.allSatisfy { topics.contains("gateway/\($0)/connection") }, "every kept frame replayed and processed")
        let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
        #expect(journal.takeRecovered().isEmpty, "acknowledged after the replay: released")
    }
}
