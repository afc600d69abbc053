import Logging
import MQTTTransport
import TelemetryCore

extension GatewayConfiguration {
    /// Every configuration key, in documentation order.
    public static let keys: [ConfigurationKey] = [
        .text(
            "registry.file", "Device registry YAML (devices and their entitlements); reloaded on SIGHUP. null: accept every device (development).",
            default: "config/devices.yml"
        ) { $0.registryFile = $1 },
        .text(
            "capabilities.file", "Capability table YAML: which models and OS versions support which Core Motion features; reloaded on SIGHUP.",
            default: "config/capabilities.yml"
        ) { $0.capabilitiesFile = $1 ?? "config/capabilities.yml" },
        .text(
            "mqtt.broker", "Broker URL: mqtt://HOST:PORT or mqtts://HOST:PORT (TLS).", default: "mqtt://127.0.0.1:1883",
            validate: { text in
                do throws(BrokerURL.ParseError) {
                    _ = try BrokerURL(parsing: text)
                    return nil
                } catch {
                    return error.description
                }
            }
        ) { configuration, text in
            if let text, let url = try? BrokerURL(parsing: text) { configuration.mqtt.broker = url }
        },
        .text(
            "mqtt.clientId", "Client id prefix; the gateway connects as <clientId>-in (subscriber) and <clientId>-out (publisher).",
            default: "wearable-gateway",
            validate: { text in
                text.count <= 60 ? nil : "must be at most 60 characters (4 more are appended), got \(text.count)"
            }
        ) { $0.mqtt.clientID = $1 ?? "wearable-gateway" },
        .text("mqtt.username", "User name for the broker.", default: nil) { $0.mqtt.username = $1 },
        .text("mqtt.password", "Password for the broker (prefer mqtt.passwordFile or WG_MQTT_PASSWORD; never logged).", default: nil) {
            $0.mqtt.password = $1
        },
        .text("mqtt.passwordFile", "File whose first line is the broker password.", default: nil) { $0.mqtt.passwordFile = $1 },
        .integer("mqtt.keepalive", "Keepalive in seconds.", default: 30, in: 5...65535) { $0.mqtt.keepalive = $1 },
        .integer(
            "mqtt.sessionExpiry",
            "Seconds the broker keeps the subscriber session and queues QoS 1 frames while the gateway is away (0: clean start).",
            default: 3600, in: 0...Int(UInt32.max)
        ) { $0.mqtt.sessionExpiry = UInt32($1) },
        .integer("mqtt.receiveMaximum", "MQTT 5 receive maximum of the subscriber (unacknowledged QoS 1/2 in flight).", default: 256, in: 1...65535) {
            $0.mqtt.receiveMaximum = $1
        },
        .integer("mqtt.maxInflightPublishes", "Bound on outstanding publishes of the publisher connection.", default: 1024, in: 1...65535) {
            $0.mqtt.maximumInflightPublishes = $1
        },
        .number("mqtt.connectTimeout", "Seconds to wait for CONNACK before retrying.", default: 10, in: 0.1...600) {
            $0.mqtt.connectTimeout = $1
        },
        .number("mqtt.reconnect.initialDelay", "First reconnect delay in seconds (doubles per failure).", default: 0.25, in: 0.01...60) {
            $0.mqtt.reconnectInitialDelay = $1
        },
        .number("mqtt.reconnect.maxDelay", "Longest reconnect delay in seconds.", default: 5, in: 0.01...3600) {
            $0.mqtt.reconnectMaximumDelay = $1
        },
        .text("mqtt.tls.caFile", "PEM file of trusted CAs; enables TLS (mqtts:// without it uses /etc/ssl/certs).", default: nil) {
            $0.mqtt.tlsCAFile = $1
        },
        .text("mqtt.tls.certFile", "Client certificate (PEM) for mutual TLS.", default: nil) { $0.mqtt.tlsCertificateFile = $1 },
        .text("mqtt.tls.keyFile", "Client private key (PEM) for mutual TLS.", default: nil) { $0.mqtt.tlsKeyFile = $1 },
        .flag("mqtt.tls.verifyHostname", "Check that the broker certificate names the host (disable only for tests).", default: true) {
            $0.mqtt.tlsVerifyHostname = $1
        },
        .text(
            "topics.inboundRoot", "Root devices publish under: <root>/{id}/<stream>.", default: "wearables",
            validate: { TopicScheme.validateRoot($0) }
        ) { $0.topics.inboundRoot = $1 ?? "wearables" },
        .text(
            "topics.outboundRoot", "Root the gateway publishes under.", default: "gateway",
            validate: { TopicScheme.validateRoot($0) }
        ) { $0.topics.outboundRoot = $1 ?? "gateway" },
        .integer("pipeline.workers", "Worker tasks devices are sharded over by a hash of the id (0: one per core).", default: 0, in: 0...1024) {
            $0.pipeline.workers = $1
        },
        .integer("pipeline.queueCapacity", "Frames each worker queue holds before the subscriber applies backpressure.", default: 8192, in: 16...10_000_000) {
            $0.pipeline.queueCapacity = $1
        },
        .number(
            "pipeline.maxHandoffWait", "Longest the subscriber blocks on a full queue (s) before admitting over capacity (counted).",
            default: 5, in: 0.001...3600
        ) { $0.pipeline.maximumHandoffWait = $1 },
        .integer("pipeline.maxPayloadBytes", "Largest frame payload accepted, in bytes.", default: 1_048_576, in: 1...268_435_455) {
            $0.pipeline.maximumPayloadBytes = $1
        },
        .number("pipeline.errorReportInterval", "Error events are aggregated per (device, code, stream) over this many seconds.", default: 10, in: 0.1...86400) {
            $0.pipeline.errorReportInterval = $1
        },
        .number("pipeline.drainTimeout", "Longest a graceful shutdown waits for queued frames and publishes (s).", default: 15, in: 0...3600) {
            $0.pipeline.drainTimeout = $1
        },
        .number("metrics.publishInterval", "Seconds between retained gateway/metrics publications (0: off).", default: 5, in: 0...86400) {
            $0.metrics.publishInterval = $1
        },
        .text(
            "logging.level", "Log level: trace, debug, info, notice, warning, error, critical.", default: "info",
            validate: { Logger.Level(rawValue: $0.lowercased()) == nil ? "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\($0)'" : nil }
        ) { configuration, text in
            if let text, let level = Logger.Level(rawValue: text.lowercased()) { configuration.logLevel = level }
        },
    ]

    /// Checks that span several keys; each issue names the key to change.
    func crossKeyIssues() -> [ConfigurationIssue] {
        var issues: [ConfigurationIssue] = []
        if (mqtt.tlsCertificateFile == nil) != (mqtt.tlsKeyFile == nil) {
            issues.append(.init(key: "mqtt.tls.certFile", source: "configuration", message: "mqtt.tls.certFile and mqtt.tls.keyFile go together; set both or neither"))
        }
        if pipeline.maximumHandoffWait * 2 >= Double(mqtt.keepalive) {
            issues.append(
                .init(
                    key: "pipeline.maxHandoffWait", source: "configuration",
                    message: "must be under half of mqtt.keepalive (\(mqtt.keepalive) s), got \(pipeline.maximumHandoffWait): a longer block risks a keepalive timeout"))
        }
        if mqtt.reconnectInitialDelay > mqtt.reconnectMaximumDelay {
            issues.append(.init(key: "mqtt.reconnect.initialDelay", source: "configuration", message: "must not exceed mqtt.reconnect.maxDelay"))
        }
        for (key, path) in [("mqtt.tls.caFile", mqtt.tlsCAFile), ("mqtt.tls.certFile", mqtt.tlsCertificateFile), ("mqtt.tls.keyFile", mqtt.tlsKeyFile), ("mqtt.passwordFile", mqtt.passwordFile)] {
            if let path, !FileSystem.isReadableFile(path) {
                issues.append(.init(key: key, source: "configuration", message: "file '\(path)' does not exist or is not readable"))
            }
        }
        if !FileSystem.isReadableFile(capabilitiesFile) {
            issues.append(.init(key: "capabilities.file", source: "configuration", message: "file '\(capabilitiesFile)' does not exist or is not readable"))
        }
        if let registryFile, !FileSystem.isReadableFile(registryFile) {
            issues.append(.init(key: "registry.file", source: "configuration", message: "file '\(registryFile)' does not exist or is not readable"))
        }
        if let problem = TopicScheme(inboundRoot: topics.inboundRoot, outboundRoot: topics.outboundRoot).configurationProblem {
            issues.append(.init(key: "topics.outboundRoot", source: "configuration", message: problem))
        }
        return issues
    }
}
