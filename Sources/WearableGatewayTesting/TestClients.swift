import Foundation
import Logging
import MQTTTransport

/// Builds connected clients for tests, each with a unique client id.
public enum TestClients {
    public static let logger: Logger = {
        var logger = Logger(label: "integration-tests")
        logger.logLevel = ProcessInfo.processInfo.environment["WG_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    public static func configuration(_ broker: TestBroker, id: String = "test-\(UUID().uuidString.prefix(8))") throws -> MQTTClientConfiguration {
        var configuration = MQTTClientConfiguration(broker: try BrokerURL(parsing: broker.url), clientID: id)
        configuration.reconnect = .init(initialDelay: 0.05, maximumDelay: 0.5)
        return configuration
    }

    /// A started client, connected before returning.
    public static func connected(
        _ configuration: MQTTClientConfiguration,
        onMessage: MQTTClient.MessageHandler? = nil,
        onEvent: MQTTClient.EventHandler? = nil
    ) async throws -> MQTTClient {
        let client = try MQTTClient(configuration: configuration, logger: logger, onMessage: onMessage, onEvent: onEvent)
        client.start()
        // A liveness bound, not a speed check: parallel tests that generate their traffic can
        // keep Swift's small cooperative pool busy for seconds on a loaded 2-core machine.
        try await client.waitUntilConnected(timeout: 30)
        return client
    }

    /// A started client subscribed to `filters`, connected and subscribed before returning.
    public static func subscribed(
        _ configuration: MQTTClientConfiguration,
        to filters: [String],
        qos: MQTTQoS = .atLeastOnce,
        onMessage: @escaping MQTTClient.MessageHandler,
        onEvent: MQTTClient.EventHandler? = nil
    ) async throws -> MQTTClient {
        let client = try await connected(configuration, onMessage: onMessage, onEvent: onEvent)
        try await client.subscribe(filters, qos: qos)
        return client
    }

    /// The same with a plain client of `broker` (``configuration(_:id:)``).
    public static func subscribed(
        _ broker: TestBroker,
        to filters: [String],
        qos: MQTTQoS = .atLeastOnce,
        onMessage: @escaping MQTTClient.MessageHandler,
        onEvent: MQTTClient.EventHandler? = nil
    ) async throws -> MQTTClient {
        try await subscribed(try configuration(broker), to: filters, qos: qos, onMessage: onMessage, onEvent: onEvent)
    }

    /// How a test watches a broker: a client subscribed to `filters` at QoS 1 and the
    /// collector of what it receives. Shut the client down at the end.
    public static func observer(
        _ configuration: MQTTClientConfiguration, subscribedTo filters: [String]
    ) async throws -> (client: MQTTClient, collector: MessageCollector) {
        let collector = MessageCollector()
        return (try await subscribed(configuration, to: filters, onMessage: collector.handler), collector)
    }

    /// The same with a plain client of `broker` (``configuration(_:id:)``).
    public static func observer(
        _ broker: TestBroker, subscribedTo filters: [String]
    ) async throws -> (client: MQTTClient, collector: MessageCollector) {
        try await observer(try configuration(broker), subscribedTo: filters)
    }
}
