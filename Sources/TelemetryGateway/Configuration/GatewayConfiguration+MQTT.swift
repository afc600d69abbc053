import MQTTTransport
import TelemetryCore

extension GatewayConfiguration {
    /// The subscriber connection: persistent session (when `sessionExpiry` > 0) so the broker
    /// queues QoS 1 frames while the gateway restarts, and the receive maximum that bounds
    /// what the broker pushes at us. It never publishes, so it may block on backpressure.
    public func subscriberConfiguration() -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(clientIDPrefix)-in")
        configuration.threadName = "mqtt-in"
        // Clustered instances start clean: while one is away the others cover its devices, and a
        // queued backlog would arrive after they did (processed twice).
        let sessionExpiry = cluster.isClustered ? 0 : mqtt.sessionExpiry
        configuration.cleanStart = sessionExpiry == 0
        configuration.sessionExpiry = sessionExpiry
        configuration.receiveMaximum = mqtt.receiveMaximum
        configuration.receiveCoalescing = pipeline.receiveCoalescing
        return configuration
    }

    /// The publisher connection: carries the will (`gateway/status` offline, retained) and
    /// every outbound event. Never blocks a callback.
    func publisherConfiguration(will: MQTTMessage) -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(clientIDPrefix)-out")
        configuration.threadName = "mqtt-out"
        // A persistent session makes "session present" mean something: false after a reconnect
        // says the broker lost its state (restarted without persistence), so the retained device
        // topics are re-announced; true after a mere network blip, so they are not.
        configuration.cleanStart = mqtt.sessionExpiry == 0
        configuration.sessionExpiry = mqtt.sessionExpiry
        configuration.maximumInflightPublishes = mqtt.maximumInflightPublishes
        configuration.will = will
        return configuration
    }

    /// The membership connection of clustered modes: announces `gateway/instances/{name}`
    /// (its will marks the instance offline) and watches the other instances. Clean session:
    /// the retained announcements are all it needs after a reconnect.
    func clusterConfiguration(will: MQTTMessage) -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(clientIDPrefix)-cluster")
        configuration.threadName = "mqtt-cluster"
        configuration.cleanStart = true
        configuration.sessionExpiry = 0
        configuration.will = will
        return configuration
    }

    /// `mqtt.clientId`, plus `-{cluster.instance}` in clustered modes (instances must not take
    /// over each other's sessions).
    public var clientIDPrefix: String {
        cluster.isClustered ? "\(mqtt.clientID)-\(cluster.instanceName)" : mqtt.clientID
    }

    /// The filters the subscriber subscribes: device frames, head-pose resets and recorder
    /// queries; in shared mode each through the shared-subscription group; in partitioned mode
    /// the discovery streams only.
    func inboundFilters(_ scheme: TopicScheme) -> [String] {
        // Clustered, the instances share the recorder store (clustered modes run on PostgreSQL):
        // any instance answers any query, so one of the group gets each.
        let query = cluster.isClustered ? TopicScheme.sharedFilter(scheme.recorderQueryFilter, group: cluster.group) : scheme.recorderQueryFilter
        switch cluster.mode {
        case .single:
            return [scheme.inboundFilter, scheme.headphoneResetPoseFilter, query]
        case .partitioned:
            // Only the discovery streams; each owned device's own filter comes from DeviceSubscriptions.
            return scheme.discoveryFilters + [scheme.headphoneResetPoseFilter, query]
        case .shared:
            // Commands from apps are routed by the app's client id, not the device's: every
            // instance reads them and the one holding the device's state applies them.
            return [TopicScheme.sharedFilter(scheme.inboundFilter, group: cluster.group), scheme.headphoneResetPoseFilter, query]
        }
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
