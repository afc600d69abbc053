import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryGateway
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Stores that fail and a start-up that is interrupted: a corrupt device state file, and
/// SIGTERM during a long journal replay with the broker frozen (docs/reliability.md).
@Suite("Faults: a corrupt state store, SIGTERM during the journal replay")
struct StoreFaultTests {
    @Test("garbage bytes in state.path: moved aside, counted, and the gateway comes online and processes frames")
    func corruptStateFile() async throws {
        let broker = try await TestBroker.started()
        let path = broker.directory.appendingPathComponent("data/state.sqlite").path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.state.path = path
        let run = try await GatewayRun.start(broker, configuration: configuration)

        try await run.observer.publish(MQTTMessage(topic: "wearables/corrupt-1/status", string: #"{"state":"online"}"#))
        try await run.collector.wait("the device's connection") { $0.contains { $0.topic == "gateway/corrupt-1/connection" } }
        try await run.waitForMetric("gateway_device_snapshots_written_total", atLeast: 1)
        #expect(run.gateway.metrics.sum("gateway_device_state_moved_aside_total") == 1)
        let directory = (path as NSString).deletingLastPathComponent
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.filter { $0.hasPrefix("state.sqlite.corrupt-") }.count == 1, "files: \(files)")
        try await run.stop()
    }

    @Test("SIGTERM during a long journal replay with the broker frozen: the gateway exits within 2 × pipeline.drainTimeout")
    func sigtermDuringReplay() async throws {
        let broker = try await TestBroker.started()
        let stream = PresenceStream(device: "replay-1", count: 300)
        let counter = PresenceCounter(stream)
        let observer = try await counter.observe(broker)
        let data = broker.directory.appendingPathComponent("gateway-data")
        let common = ["--set", "mqtt.clientId=gw-replay", "--set", "registry.file=null"]
        // No snapshot write within the test (the first is due one interval after the first
        // tick): every status frame keeps its journal record, so the kill leaves all of them.
        let first = try GatewayProcess(broker: broker, arguments: common + ["--set", "state.snapshotInterval=3600"], dataDirectory: data)
        try await first.waitUntilSubscribed()
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await stream.publish(with: device)
        try await counter.wait(forDistinct: stream.count, timeout: 60)
        first.signal(SIGKILL)
        _ = try await first.waitForExit(timeout: 10)
        await device.shutdown()
        await observer.shutdown()

        // Frozen broker: the one publish slot is never acknowledged, the worker waits, its queue
        // fills, and every further replayed frame waits pipeline.maxHandoffWait (minutes in all).
        broker.freeze()
        defer { broker.thaw() }
        let drainTimeout = 1.0
        let second = try GatewayProcess(
            broker: broker,
            arguments: common + [
                "--set", "pipeline.drainTimeout=\(drainTimeout)", "--set", "pipeline.workers=1", "--set", "pipeline.queueCapacity=16",
                "--set", "pipeline.maxHandoffWait=1", "--set", "mqtt.maxInflightPublishes=1", "--set", "mqtt.connectTimeout=60",
            ], dataDirectory: data)
        try await second.waitForLog("replaying", timeout: 30)
        let signalled = ContinuousClock.now
        second.signal(SIGTERM)
        let status = try await second.waitForExit(timeout: 4 * drainTimeout + 10)
        let elapsed = ContinuousClock.now - signalled
        #expect(elapsed < .seconds(2 * drainTimeout + 1), "took \(elapsed); log:\n\(second.log)")
        #expect(status == 0 || status == 75, "status \(status); log:\n\(second.log)")
        #expect(second.log.contains("replaying \(stream.count) frames"), "every frame was in the journal; log:\n\(second.log)")
        #expect(second.log.contains("shutdown during the journal replay"), "the signal came during the replay; log:\n\(second.log)")
    }
}
