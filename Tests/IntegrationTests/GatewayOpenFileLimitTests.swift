import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `wearable-gateway run` raises its soft open-file limit to the hard one at start: a shell's
/// 1,024 is low for a server whose HTTP clients, connections and files each hold a descriptor.
@Suite("wearable-gateway and the open-file limit")
struct GatewayOpenFileLimitTests {
    /// The `process_max_fds` a gateway started under `prlimit --nofile=<limits>` publishes, and its log.
    private static func maximumDescriptors(nofile limits: String) async throws -> (Double, String) {
        let broker = try await TestBroker.started()
        let (observer, metrics) = try await TestClients.observer(broker, subscribedTo: ["gateway/metrics"])
        let gateway = try GatewayProcess(
            broker: broker, arguments: ["--set", "registry.file=null", "--set", "metrics.publishInterval=0.2"],
            launcher: ["/usr/bin/prlimit", "--nofile=\(limits)"])
        try await gateway.waitUntilSubscribed()
        let published = try await metrics.wait(timeout: 15, "process_max_fds on gateway/metrics") { messages in
            PrometheusText.latest(in: messages)?.text.contains("process_max_fds ") == true
        }
        let value = try #require(PrometheusText.latest(in: published)).sum("process_max_fds")
        gateway.signal(SIGTERM)
        #expect(try await gateway.waitForExit(timeout: 30) == 0, "log:\n\(gateway.log.suffix(3000))")
        await observer.shutdown()
        return (value, gateway.log)
    }

    @Test("soft 256, hard 4,096: the gateway runs with 4,096 and says so")
    func raisedToTheHardLimit() async throws {
        let (maximum, log) = try await Self.maximumDescriptors(nofile: "256:4096")
        #expect(maximum == 4096)
        #expect(log.contains("open files: soft limit raised from 256 to 4096 (the hard limit)"), "log:\n\(log.suffix(3000))")
    }

    @Test("soft and hard 256: nothing to raise, the gateway runs with 256 and logs nothing about it")
    func nothingToRaise() async throws {
        let (maximum, log) = try await Self.maximumDescriptors(nofile: "256:256")
        #expect(maximum == 256)
        #expect(!log.contains("open files:"), "log:\n\(log.suffix(3000))")
    }
}
