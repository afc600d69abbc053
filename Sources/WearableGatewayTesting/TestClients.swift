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
}
