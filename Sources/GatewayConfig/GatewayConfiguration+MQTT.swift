import MQTTTransport
import TelemetryCore

extension GatewayConfiguration {
    /// The subscriber connection: persistent session (when `sessionExpiry` > 0) so the broker
    /// queues QoS 1 frames while the gateway restarts, and the receive maximum that bounds
    /// what the broker pushes at us. It never publishes, so it may block on backpressure.
    public func subscriberConfiguration() -> MQTTClientConfiguration {
        var configuration = base(clientID: "\(clientIDPrefix)-in")
        configuration.threadName = "mqtt-in"
        // Clustered, the session outlives a lost connection by less than the leases (lease time
        // − one heartbeat, whole seconds): a blip shorter than that moves no partition, so the
        // frames it carried wait in the session for the same owner; a dead instance's session
        // (and the recorder queries its shared subscription still draws) ends before another
        // instance can take its leases, so a restart that resumes it takes those leases back at
        // once and holds no subscription of another's device. A graceful stop, which hands
        // everything over first, ends it at once (docs/scale-out.md).
        let sessionExpiry = cluster.isClustered ? min(mqtt.sessionExpiry, cluster.subscriberSessionExpiry) : mqtt.sessionExpiry
        configuration.cleanStart = sessionExpiry == 0
        configuration.sessionExpiry = sessionExpiry
        configuration.endsSessionAtStop = cluster.isClustered
        configuration.receiveMaximum = mqtt.receiveMaximum
        configuration.receiveCoalescing = pipeline.receiveCoalescing
        return configuration
    }

    /// The publisher connection: carries the will (`gateway/status` offline, retained) and
    /// every outbound event. Never blocks a callback.
    package func publisherConfiguration(will: MQTTMessage) -> MQTTClientConfiguration {
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

    /// `mqtt.clientId`, plus `-{cluster.instance}` in clustered modes (instances must not take
    /// over each other's sessions).
    public var clientIDPrefix: String {
        cluster.isClustered ? "\(mqtt.clientID)-\(cluster.instanceName)" : mqtt.clientID
    }

    /// The filters the subscriber subscribes: device frames, head-pose resets and recorder
    /// queries; clustered, the discovery streams instead of every device's frames.
    package func inboundFilters(_ scheme: TopicScheme) -> [String] {
        // Clustered, the instances share the recorder store (clustered modes run on PostgreSQL):
        // any instance answers any query, so one of the group gets each.
        let query = cluster.isClustered ? TopicScheme.sharedFilter(scheme.recorderQueryFilter, group: cluster.group) : scheme.recorderQueryFilter
        guard cluster.isClustered else { return [scheme.inboundFilter, scheme.headphoneResetPoseFilter, query] }
        // Only the discovery streams; the devices of held partitions come from PartitionSubscriptions.
        return scheme.discoveryFilters + [scheme.headphoneResetPoseFilter, query]
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
