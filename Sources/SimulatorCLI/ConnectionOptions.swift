import ArgumentParser
import Foundation
import Logging
import MQTTTransport
import TelemetryCore

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

    @Option(
        help: ArgumentHelp(
            "Directory of per-device client certificates: each device connects with DIR/<device id>.crt and .key (mutual TLS; the broker takes the certificate name as the device's identity). scripts/make-dev-pki.sh writes them to config/mosquitto/pki/clients.",
            valueName: "dir"))
    var identityDir: String?

    @Option(help: "Inbound topic root.")
    var root: String = TopicScheme.defaultInboundRoot

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

    /// A client configuration for one device: its id is the MQTT client id, its certificate
    /// (with `--identity-dir`) its identity, and its will marks the device offline.
    func configuration(clientID: String, will: MQTTMessage?) throws -> MQTTClientConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = MQTTClientConfiguration(
            broker: try brokerURL(), clientID: clientID,
            username: username ?? environment["WG_MQTT_USERNAME"], password: password ?? environment["WG_MQTT_PASSWORD"],
            will: will)
        if let identityDir {
            let certificate = "\(identityDir)/\(clientID).crt"
            let key = "\(identityDir)/\(clientID).key"
            for file in [certificate, key] where !FileManager.default.isReadableFile(atPath: file) {
                throw ValidationError("--identity-dir: no readable \(file) for device \(clientID) (run scripts/make-dev-pki.sh after adding the device to config/devices.yml)")
            }
            configuration.tls = .init(caFile: caFile, certificateFile: certificate, keyFile: key)
        } else if let caFile {
            configuration.tls = .init(caFile: caFile)
        }
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
