import ArgumentParser
import Foundation
import Logging
import MQTTTransport

/// Broker options shared by the simulator's subcommands.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Broker URL, mqtt://HOST:PORT or mqtts://HOST:PORT.")
    var broker: String = "mqtt://127.0.0.1:1883"

    @Option(help: "User name for every device connection (default: $WG_MQTT_USERNAME).")
    var username: String?

    @Option(help: "Password (default: $WG_MQTT_PASSWORD).")
    var password: String?

    @Option(help: "CA file for mqtts:// brokers.")
    var caFile: String?

    @Option(help: "Inbound topic root.")
    var root: String = "wearables"

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func brokerURL() throws -> BrokerURL {
        do {
            return try BrokerURL(parsing: broker)
        } catch {
            throw ValidationError("--broker: \(error.description)")
        }
    }

    func makeLogger() throws -> Logger {
        try bootstrapLogging(logLevel)
        return Logger(label: "wearable-sim")
    }

    /// Applies the credentials and TLS options to a client configuration made elsewhere
    /// (the testing kit's recorder and replayer).
    func applyCredentials(to configuration: inout MQTTClientConfiguration) {
        let environment = ProcessInfo.processInfo.environment
        configuration.username = username ?? environment["WG_MQTT_USERNAME"]
        configuration.password = password ?? environment["WG_MQTT_PASSWORD"]
        if let caFile { configuration.tls = .init(caFile: caFile) }
    }

    /// A client configuration for one device: its id is the MQTT client id (the broker ACL
    /// keys on it) and its will marks the device offline.
    func configuration(clientID: String, will: MQTTMessage?) throws -> MQTTClientConfiguration {
        var configuration = MQTTClientConfiguration(broker: try brokerURL(), clientID: clientID, will: will)
        applyCredentials(to: &configuration)
        return configuration
    }
}

/// Sends every log to stderr at the `--log-level` named `name`.
/// - Returns: the level.
@discardableResult
func bootstrapLogging(_ name: String) throws -> Logger.Level {
    guard let level = Logger.Level(rawValue: name.lowercased()) else {
        throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return level
}
