import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The executable's status life cycle: online at start, offline on SIGTERM after draining,
/// offline through the will when it dies without a word.
@Suite("Gateway process life cycle")
struct GatewayLifecycleTests {
    private func statusStates(_ messages: [MQTTMessage]) throws -> [String] {
        try messages.filter { $0.topic == "gateway/status" }.compactMap { try json($0)["state"] as? String }
    }

    /// A broker, an observer of `filters`, and the gateway executable, returned once the
    /// observer saw it online.
    private func startOnline(
        observing filters: [String], arguments: [String] = []
    ) async throws -> (broker: TestBroker, collector: MessageCollector, observer: MQTTClient, gateway: GatewayProcess) {
        let broker = try await TestBroker.started()
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: filters)
        let gateway = try GatewayProcess(broker: broker, arguments: arguments)
        try await collector.wait("online") { (try? self.statusStates($0)) == ["online"] }
        return (broker, collector, observer, gateway)
    }

    @Test("SIGTERM drains and publishes offline; exit status 0", arguments: [SIGTERM, SIGINT])
    func gracefulSignal(signal: Int32) async throws {
        let (broker, collector, observer, gateway) = try await startOnline(observing: ["gateway/#"], arguments: ["--set", "registry.file=null"])

        try await gateway.waitForLog("subscribed to", timeout: 20)

        // Work in flight at the signal is finished, not dropped: presence is published.
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.publish(MQTTMessage(topic: "wearables/sig-1/status", string: #"{"state":"online"}"#))
        try await collector.wait("presence") { $0.contains { $0.topic == "gateway/sig-1/connection" } }
        gateway.signal(signal)
        let status = try await gateway.waitForExit(timeout: 20)
        #expect(status == 0, "log:\n\(gateway.log)")
        let received = try await collector.wait("offline") { (try? self.statusStates($0).last) == "offline" }
        let offline = try json(try #require(received.last { $0.topic == "gateway/status" }))
        #expect(offline["reason"] as? String == "shutdown")
        await device.shutdown()
        await observer.shutdown()
    }

    @Test("gateway/status online comes only once the inbound connection has subscribed")
    func onlineAfterSubscription() async throws {
        let (broker, _, observer, gateway) = try await startOnline(observing: ["gateway/status"], arguments: ["--set", "registry.file=null"])
        // The broker logs a SUBSCRIBE before it answers it: a device publishing on seeing online
        // reaches the gateway's subscription.
        #expect(
            broker.log.split(separator: "\n").contains { $0.hasSuffix(" wearables/+/#") },
            "online before the broker saw the inbound subscription; broker log:\n\(broker.log)")
        // The gateway's own order (the publisher connects first, so without the wait it announced
        // online before its subscriber had subscribed).
        try await gateway.waitForLog("published gateway/status online", timeout: 20)
        let log = gateway.log
        let subscribed = try #require(log.range(of: "subscribed to"), "log:\n\(log)")
        let online = try #require(log.range(of: "published gateway/status online"))
        #expect(subscribed.lowerBound < online.lowerBound, "log:\n\(log)")
        gateway.signal(SIGTERM)
        #expect(try await gateway.waitForExit(timeout: 20) == 0, "log:\n\(gateway.log)")
        await observer.shutdown()
    }

    @Test("kill -9 makes the broker publish the will: gateway/status offline, retained")
    func crashFiresWill() async throws {
        let (broker, collector, observer, gateway) = try await startOnline(observing: ["gateway/status"])
        gateway.signal(SIGKILL)
        _ = try await gateway.waitForExit(timeout: 10)
        let received = try await collector.wait("the will") { (try? self.statusStates($0).last) == "offline" }
        #expect(try json(try #require(received.last))["reason"] as? String == "connectionLost")

        // And it is retained: a newcomer learns the gateway is down.
        let (lateClient, late) = try await TestClients.observer(broker, subscribedTo: ["gateway/status"])
        let retained = try await late.wait("retained status") { !$0.isEmpty }
        #expect(retained[0].retain)
        #expect(try json(retained[0])["state"] as? String == "offline")
        await lateClient.shutdown()
        await observer.shutdown()
    }

    @Test("check-config names the bad key and exits 78")
    func checkConfigNamesBadKey() async throws {
        let (status, output) = try await runToExit(["check-config", "--set", "mqtt.keepalvie=30", "--set", "pipeline.workers=-1"])
        #expect(status == 78)
        #expect(output.contains("mqtt.keepalvie: unknown key (did you mean 'mqtt.keepalive'?)"))
        #expect(output.contains("pipeline.workers: must be a whole number from 0 to 1024, got '-1'"))
    }

    @Test("run refuses a password file that is not UTF-8: exit 78 naming mqtt.passwordFile, no connection attempt")
    func runRefusesBadPasswordFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wg-pw-\(UUID().uuidString)").path
        try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for command in ["run", "check-config"] {
            let (status, output) = try await runToExit([command, "--set", "mqtt.passwordFile=\(path)", "--set", "mqtt.username=gateway"])
            #expect(status == 78, "\(command): \(output)")
            #expect(output.contains("mqtt.passwordFile: file '\(path)' is not UTF-8 text"), "\(command): \(output)")
        }
    }

    @Test("run and check-config refuse a clustered mode on SQLite: exit 78 naming store.backend, before any connection")
    func clusteredModeNeedsPostgres() async throws {
        for command in ["run", "check-config"] {
            let (status, output) = try await runToExit([command, "--set", "cluster.mode=partitioned", "--set", "cluster.instance=gw-a", "--set", "registry.file=null"])
            #expect(status == 78, "\(command): \(output)")
            #expect(output.contains("store.backend: cluster.mode partitioned needs store.backend: postgres"), "\(command): \(output)")
        }
    }

    /// Runs `wearable-gateway ARGUMENTS` from the repository root to its end.
    private func runToExit(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runChildProcess(GatewayProcess.executable, arguments, in: TestBroker.repositoryRoot)
    }
}
