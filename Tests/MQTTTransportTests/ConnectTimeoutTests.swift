import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// Brokers that never answer, on real sockets: an attempt is given up after
/// `connectTimeout` and retried, never left to the kernel's TCP timeouts. It asserts time
/// bounds, so `scripts/test.sh` runs it alone with the other timed tests (`WG_TIMED_TESTS=1`):
/// beside the parallel suite on two cores, an attempt's report came 18 s late.
@Suite("Connect timeout against silent ports", .enabled(if: ProcessInfo.processInfo.environment["WG_TIMED_TESTS"] != nil))
struct ConnectTimeoutTests {
    private let connectTimeout = 1.0

    /// Starts a client on `listener` and returns its first failed attempt's reason and how long
    /// after the start it came.
    private func firstFailure(on listener: SilentListener) async throws -> (reason: String, after: Duration) {
        let events = EventRecorder()
        var configuration = MQTTClientConfiguration(
            broker: try BrokerURL(parsing: listener.url), clientID: "silent-\(UUID().uuidString.prefix(6))")
        configuration.connectTimeout = connectTimeout
        configuration.reconnect = .init(initialDelay: 0.1, maximumDelay: 0.2)
        let client = try MQTTClient(configuration: configuration, logger: TestClients.logger, onEvent: events.handler)
        let started = ContinuousClock.now
        client.start()
        // Well short of the kernel's SYN retries (~127 s with tcp_syn_retries 6).
        try await events.wait(timeout: connectTimeout + 5, "a second failed attempt") { events in
            events.filter { if case .connectFailed = $0 { true } else { false } }.count >= 2
        }
        let failedAt = ContinuousClock.now
        await client.shutdown()
        for case .connectFailed(let reason, _) in events.events { return (reason, failedAt - started) }
        throw TestFailure("no failed attempt recorded")
    }

    @Test("a port that completes the TCP handshake but never sends CONNACK is given up after connectTimeout")
    func handshakeWithoutCONNACK() async throws {
        let listener = try SilentListener(.completesHandshake)
        let (reason, after) = try await firstFailure(on: listener)
        #expect(reason.contains("no CONNACK within"), "reason: \(reason)")
        // Two attempts, each bounded by connectTimeout, with a backoff of at most 0.2 s between.
        #expect(after < .seconds(2 * connectTimeout + 1.5), "took \(after)")
    }

    @Test("a port that drops SYNs is given up after connectTimeout, not after the kernel's SYN retries")
    func droppedSYNs() async throws {
        let listener = try SilentListener(.dropsSYNs)
        let (reason, after) = try await firstFailure(on: listener)
        #expect(reason.contains("no TCP connection"), "reason: \(reason)")
        #expect(after < .seconds(2 * connectTimeout + 1.5), "took \(after)")
    }
}
