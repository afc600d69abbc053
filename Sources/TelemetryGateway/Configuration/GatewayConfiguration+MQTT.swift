import MQTTTransport

extension GatewayConfiguration {
    /// The subscriber connection: persistent session (when `sessionExpiry` > 0) so the broker
    /// queues QoS 1 frames while the gateway restarts, and the receive maximum that bounds
    /// what the broker pushes at us. It never publishes, so it may block on backpressure.
    public func subscriberConfiguration() -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(mqtt.clientID)-in")
        configuration.cleanStart = mqtt.sessionExpiry == 0
        configuration.sessionExpiry = mqtt.sessionExpiry
        configuration.receiveMaximum = mqtt.receiveMaximum
        return configuration
    }

    /// The publisher connection: carries the will (`gateway/status` offline, retained) and
    /// every outbound event. Never blocks a callback.
    func publisherConfiguration(will: MQTTMessage) -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(mqtt.clientID)-out")
        // A persistent session makes "session present" mean something: false after a reconnect
        // says the broker lost its state (restarted without persistence), so the retained device
        // topics are re-announced; true after a mere network blip, so they are not.
        configuration.cleanStart = mqtt.sessionExpiry == 0
        configuration.sessionExpiry = mqtt.sessionExpiry
        configuration.maximumInflightPublishes = mqtt.maximumInflightPublishes
        configuration.will = will
        return configuration
    }

    private func base(clientID: String) -> MQTTClientConfiguration {
        var tls: MQTTClientConfiguration.TLS?
        if mqtt.tlsCAFile != nil || mqtt.broker.usesTLS {
            tls = .init(
                caFile: mqtt.tlsCAFile, certificateFile: mqtt.tlsCertificateFile, keyFile: mqtt.tlsKeyFile,
                verifyHostname: mqtt.tlsVerifyHostname)
        }
        return MQTTClientConfiguration(
            broker: mqtt.broker, clientID: clientID, username: mqtt.username, password: mqtt.password, keepalive: mqtt.keepalive,
            tls: tls, reconnect: .init(initialDelay: mqtt.reconnectInitialDelay, maximumDelay: mqtt.reconnectMaximumDelay),
            connectTimeout: mqtt.connectTimeout)
    }
}
