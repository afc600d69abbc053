import BrokerTestSupport
import Foundation
import MQTTTransport
import Locking
import Testing

/// What every device does after a broker restart: say hello. The gateway must answer each with
/// its availability quickly and without its memory running away.
///
/// It asserts a time bound, so it runs alone: scripts/test.sh runs it after the other tests with
/// `WG_STORM_TEST=1` (the parallel run skips it). docs/reliability.md has the figures.
@Suite("Reconnect storm", .enabled(if: ProcessInfo.processInfo.environment["WG_STORM_TEST"] != nil))
struct HelloStormTests {
    @Test("100,000 devices say hello: every availability within 30 s, resident memory under 400 MB")
    func helloStorm() async throws {
        let broker = try await TestBroker.started()
        let deviceCount = 100_000
        let counter = TopicCounter(suffix: "/availability")
        let observer = try await TestClients.subscribed(broker, to: ["gateway/+/availability"], onMessage: counter.handler)
        let gateway = try GatewayProcess(broker: broker, arguments: ["--set", "registry.file=null"])
        try await gateway.waitUntilSubscribed()

        let started = ContinuousClock.now
        var clientConfiguration = try TestClients.configuration(broker)
        clientConfiguration.maximumInflightPublishes = 4096
        let storm = try await TestClients.connected(clientConfiguration)
        for index in 0..<deviceCount {
            try await storm.send(MQTTMessage(topic: "wearables/storm-\(index)/hello", string: Self.hello(index)))
        }
        // Both figures are reported even when the time goal is missed.
        let answeredInTime = (try? await counter.wait(forAtLeast: deviceCount, timeout: 30 - (ContinuousClock.now - started).inSeconds)) != nil
        let elapsed = ContinuousClock.now - started
        let resident = try #require(gateway.peakResidentBytes)
        print("hello storm: \(counter.count) of \(deviceCount) availabilities in \(elapsed); gateway peak resident \(resident / 1_048_576) MB")
        #expect(answeredInTime, "\(counter.count) of \(deviceCount) availabilities within 30 s")
        #expect(resident < 400 * 1_048_576, "peak resident \(resident / 1_048_576) MB")
        await storm.shutdown()
        await observer.shutdown()
    }

    private static func hello(_ index: Int) -> String {
        #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.\#(index % 5)","app":"com.example.fleet","authorization":"authorized"}"#
    }
}

/// Counts distinct topics ending in a suffix, waking waiters on each new one.
final class TopicCounter: Sendable {
    private let suffix: String
    private let topics = WatchedState<Set<String>>([])

    init(suffix: String) {
        self.suffix = suffix
    }

    var handler: MQTTClient.MessageHandler {
        { [suffix, topics] message in
            guard message.topic.hasSuffix(suffix) else { return }
            topics.update { _ = $0.insert(message.topic) }
        }
    }

    var count: Int { topics.value.count }

    func wait(forAtLeast target: Int, timeout: Double) async throws {
        guard await topics.wait(timeout: max(0, timeout), until: { $0.count >= target }) else {
            throw TestFailure("saw \(count) of \(target) topics ending in \(suffix) within \(timeout) s")
        }
    }
}
