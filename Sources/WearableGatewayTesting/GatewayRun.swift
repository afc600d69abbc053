import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway

/// An in-process gateway on a test broker plus an observer subscribed to everything it
/// publishes, started and announced online: the set-up every end-to-end test shares.
///
/// ```swift
/// let broker = try await TestBroker.started()
/// let run = try await GatewayRun.start(broker)
/// try await run.publish(frames)
/// let swings = try await run.waitForEvents("swing", device: "watch-s9-1", count: 3)
/// try await run.stop()
/// ```
public struct GatewayRun: Sendable {
    /// The broker the gateway and observer are connected to.
    public let broker: TestBroker
    /// The in-process gateway.
    public let gateway: GatewayHarness
    /// Everything the gateway published (`<outbound root>/#`), in arrival order.
    public let collector: MessageCollector
    /// The observer's connection; ``publish(_:)`` sends test traffic on it too.
    public let observer: MQTTClient
    /// The configuration the gateway runs with.
    public let configuration: GatewayConfiguration

    /// Starts the gateway with `configuration` and returns once `<outbound root>/status` arrived
    /// and its inbound connection subscribed to the device topics.
    /// - Parameter clock: the gateway's clock (a ``ManualGatewayClock`` to set when frames arrive).
    /// - Throws: when the gateway cannot be built or does not come online within 20 s.
    public static func start(
        _ broker: TestBroker, configuration: GatewayConfiguration, clock: any GatewayClock = SystemGatewayClock()
    ) async throws -> GatewayRun {
        let gateway = try GatewayHarness(configuration: configuration, clock: clock)
        gateway.start()
        let scheme = configuration.topics.scheme
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: [scheme.outboundRootFilter])
        try await collector.wait("gateway online") { $0.contains { $0.topic == scheme.statusTopic } }
        try await waitUntilSubscribed(broker, configuration: configuration)
        return GatewayRun(broker: broker, gateway: gateway, collector: collector, observer: observer, configuration: configuration)
    }

    /// Waits until the gateway's inbound connection subscribed to the device topics. Its
    /// online status comes from its other (publishing) connection and does not say that: a frame
    /// published in between would find no subscriber.
    public static func waitUntilSubscribed(_ broker: TestBroker, configuration: GatewayConfiguration) async throws {
        try await broker.waitForSubscription(
            clientID: configuration.subscriberConfiguration().clientID, filter: configuration.topics.scheme.inboundFilter)
    }

    /// Starts the gateway with the test defaults of ``GatewayHarness/configuration(broker:clientID:)``.
    /// - Parameters:
    ///   - broker: the broker.
    ///   - registry: a device registry in the YAML of `config/devices.yml`; nil leaves the
    ///     registry open (every device id, every entitlement).
    ///   - configure: changes to the test configuration, e.g. `{ $0.swing.minimumSpeed = 5 }`.
    public static func start(
        _ broker: TestBroker, registry: String? = nil, configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) async throws -> GatewayRun {
        var configuration = try GatewayHarness.configuration(broker: broker)
        if let registry {
            let file = broker.directory.appendingPathComponent("devices-\(UUID().uuidString.prefix(6)).yml")
            try registry.write(to: file, atomically: true, encoding: .utf8)
            configuration.registryFile = file.path
        }
        configure(&configuration)
        return try await start(broker, configuration: configuration)
    }

    /// Waits until the gateway's published metrics show `name` (summed over series matching
    /// `labels`) at `atLeast` or more; returns everything received so far.
    @discardableResult
    public func waitForMetric(_ name: String, labels: [String: String] = [:], atLeast target: Double, timeout: Double = 60) async throws
        -> [MQTTMessage]
    {
        let metricsTopic = configuration.topics.scheme.metricsTopic
        return try await collector.wait(timeout: timeout, "\(name)\(labels.isEmpty ? "" : "\(labels)") to reach \(target)") { messages in
            guard let metrics = PrometheusText.latest(in: messages, topic: metricsTopic) else { return false }
            return metrics.sum(name, labels: labels) >= target
        }
    }

    /// Waits until the gateway's own registry shows `name` (summed over series matching
    /// `labels`) at `atLeast` or more, reading it every 10 ms. Unlike ``waitForMetric(_:labels:atLeast:timeout:)``
    /// it does not wait for the publication on `gateway/metrics`, whose timer runs on the
    /// gateway's clock: on a ``ManualGatewayClock`` that publishes only when the test advances it.
    /// - Throws: ``TestFailure`` after `timeout` seconds (real time).
    public func waitForRegisteredMetric(_ name: String, labels: [String: String] = [:], atLeast target: Double, timeout: Double = 60) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while gateway.metrics.sum(name, labels: labels) < target {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out after \(timeout) s waiting for \(name)\(labels.isEmpty ? "" : "\(labels)") to reach \(target) in the registry")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the gateway gracefully and disconnects the observer.
    public func stop() async throws {
        try await gateway.stop()
        await observer.shutdown()
    }
}
