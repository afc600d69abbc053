import MQTTTransport

extension GatewayConfiguration {
    /// The broker connections.
    public struct MQTT: Sendable {
        /// Broker URL, `mqtt://HOST:PORT` or `mqtts://HOST:PORT`.
        public var broker = BrokerURL(host: "127.0.0.1", port: 1883)
        /// Client id prefix: the subscriber is `<clientId>-in`, the publisher `<clientId>-out`.
        public var clientID = "wearable-gateway"
        /// User name for the broker, if it requires one.
        public var username: String?
        /// Password for the broker. Never logged.
        public var password: String?
        /// File holding the password (first line); used when `password` is not set.
        public var passwordFile: String?
        /// Keepalive in seconds.
        public var keepalive = 30
        /// Seconds the broker keeps the subscriber's session (and queues its QoS 1 messages)
        /// while the gateway is away; 0 starts clean every time.
        public var sessionExpiry: UInt32 = 3600
        /// MQTT 5 receive maximum of the subscriber connection.
        public var receiveMaximum = 256
        /// Bound on outstanding publishes of the publisher connection.
        public var maximumInflightPublishes = 1024
        /// Seconds to wait for CONNACK before retrying.
        public var connectTimeout = 10.0
        /// First reconnect delay in seconds.
        public var reconnectInitialDelay = 0.25
        /// Longest reconnect delay in seconds.
        public var reconnectMaximumDelay = 5.0
        /// TLS CA file; setting it (or using `mqtts://`) enables TLS.
        public var tlsCAFile: String?
        /// TLS client certificate for mutual TLS.
        public var tlsCertificateFile: String?
        /// TLS client key for mutual TLS.
        public var tlsKeyFile: String?
        /// Verify that the broker certificate names the host.
        public var tlsVerifyHostname = true

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.MQTT {
    /// The `mqtt.*` keys.
    package static let keys: [ConfigurationKey] = [
        .parsed(
            "mqtt.broker", "Broker URL: mqtt://HOST:PORT or mqtts://HOST:PORT (TLS).", \.mqtt.broker, describe: { "\($0)" },
            parse: { text in
                do throws(BrokerURL.ParseError) {
                    return .value(try BrokerURL(parsing: text))
                } catch {
                    return .invalid(error.description)
                }
            }),
        .text(
            "mqtt.clientId", "Client id prefix; the gateway connects as <clientId>-in (subscriber) and <clientId>-out (publisher).",
            validate: { text in
                text.count <= 60 ? nil : "must be at most 60 characters (4 more are appended), got \(text.count)"
            }, \.mqtt.clientID),
        .optionalText("mqtt.username", "User name for the broker.", \.mqtt.username),
        .optionalText("mqtt.password", "Password for the broker (prefer mqtt.passwordFile or WG_MQTT_PASSWORD; never logged).", \.mqtt.password),
        .optionalText("mqtt.passwordFile", "File whose first line is the broker password.", \.mqtt.passwordFile),
        .integer("mqtt.keepalive", "Keepalive in seconds.", in: 5...65535, \.mqtt.keepalive),
        .integer(
            "mqtt.sessionExpiry",
            "Seconds the broker keeps the subscriber session and queues QoS 1 frames while the gateway is away (0: clean start; clustered instances keep it at most 2.5 × cluster.leaseTime + 2 × cluster.heartbeatInterval, so a dead or broker-cut instance's stand-in can resume it, and end it at a graceful stop).",
            in: 0...Int(UInt32.max), \.mqtt.sessionExpiry),
        .integer(
            "mqtt.receiveMaximum", "MQTT 5 receive maximum of the subscriber (unacknowledged QoS 1 frames in flight from the broker).", in: 1...65535,
            \.mqtt.receiveMaximum),
        .integer("mqtt.maxInflightPublishes", "Bound on outstanding publishes of the publisher connection.", in: 1...65535, \.mqtt.maximumInflightPublishes),
        .number(
            "mqtt.connectTimeout", "Seconds an attempt may take to open the TCP connection and get the CONNACK before it is given up and retried.",
            in: 0.1...600, \.mqtt.connectTimeout),
        .number("mqtt.reconnect.initialDelay", "First reconnect delay in seconds (doubles per failure).", in: 0.01...60, \.mqtt.reconnectInitialDelay)
            .checked { $0.mqtt.reconnectInitialDelay > $0.mqtt.reconnectMaximumDelay ? "must not exceed mqtt.reconnect.maxDelay" : nil },
        .number("mqtt.reconnect.maxDelay", "Longest reconnect delay in seconds.", in: 0.01...3600, \.mqtt.reconnectMaximumDelay),
        .optionalText("mqtt.tls.caFile", "PEM file of trusted CAs; enables TLS (mqtts:// without it uses /etc/ssl/certs).", \.mqtt.tlsCAFile)
            .checked { CredentialFiles.pemProblem(ofOptional: $0.mqtt.tlsCAFile) },
        .optionalText("mqtt.tls.certFile", "Client certificate (PEM) for mutual TLS.", \.mqtt.tlsCertificateFile)
            .checked { ($0.mqtt.tlsCertificateFile == nil) != ($0.mqtt.tlsKeyFile == nil) ? "mqtt.tls.certFile and mqtt.tls.keyFile go together; set both or neither" : nil }
            .checked { CredentialFiles.pemProblem(ofOptional: $0.mqtt.tlsCertificateFile) },
        .optionalText("mqtt.tls.keyFile", "Client private key (PEM) for mutual TLS.", \.mqtt.tlsKeyFile)
            .checked { CredentialFiles.pemProblem(ofOptional: $0.mqtt.tlsKeyFile) },
        .flag("mqtt.tls.verifyHostname", "Check that the broker certificate names the host (disable only for tests).", \.mqtt.tlsVerifyHostname),
    ]
}
