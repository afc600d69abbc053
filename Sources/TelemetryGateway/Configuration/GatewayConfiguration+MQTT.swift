import MQTTTransport
import TelemetryCore

extension GatewayConfiguration {
    /// The subscriber connection: persistent session (when `sessionExpiry` > 0) so the broker
    /// queues QoS 1 frames while the gateway restarts, and the receive maximum that bounds
    /// what the broker pushes at us. It never publishes, so it may block on backpressure.
    public func subscriberConfiguration() -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(clientIDPrefix)-in")
        // Clustered instances start clean: while one is away the others cover its devices, and a
        // queued backlog would arrive after they did (processed twice).
        let sessionExpiry = cluster.isClustered ? 0 : mqtt.sessionExpiry
        configuration.cleanStart = sessionExpiry == 0
        configuration.sessionExpiry = sessionExpiry
        configuration.receiveMaximum = mqtt.receiveMaximum
        return configuration
    }

    /// The publisher connection: carries the will (`gateway/status` offline, retained) and
    /// every outbound event. Never blocks a callback.
    func publisherConfiguration(will: MQTTMessage) -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(clientIDPrefix)-out")
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
    /// sharing state, first the other instances' device snapshots (on this connection, which has
    /// no will: a burst of them at shutdown must not disturb the membership connection's
    /// clean disconnect).
    func inboundFilters(_ scheme: TopicScheme) -> [String] {
        let filters = [scheme.inboundFilter, scheme.headphoneResetPoseFilter, scheme.recorderQueryFilter]
        if cluster.mode == .partitioned, cluster.shareState { return [scheme.clusterStateFilter] + filters }
        guard cluster.mode == .shared else { return filters }
        return filters.map { TopicScheme.sharedFilter($0, group: cluster.group) }
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
