extension TopicScheme {
    /// The topics the gateway publishes that belong to no device leaf: its own state, reports
    /// without a device, the clustered modes' coordination, and answers on requesters' response
    /// topics. Each carries the QoS and retain flag it is published with (the wire contract's
    /// table of outbound topics); ``TopicScheme/topic(_:)`` builds it.
    public enum GatewayTopic: Sendable, Hashable {
        /// The gateway's presence, `gateway/status` (retained; also the will).
        case status
        /// Topic-level errors without a valid device, `gateway/errors`.
        case errors
        /// The metrics text, `gateway/metrics` (retained).
        case metrics
        /// The broker round-trip probe, `gateway/probe`.
        case probe
        /// Rejected frames without a valid device id, `gateway/dead-letter`.
        case deadLetter
        /// One instance's announcement in the clustered modes, `gateway/instances/{name}` (retained).
        case instance(String)
        /// One instance's metrics in the clustered modes, `gateway/instances/{name}/metrics` (retained).
        case instanceMetrics(String)
        /// An answer on the response topic a requester chose (checked by ``RecorderReplyCheck``);
        /// the topic is used as it is.
        case response(String)

        /// The QoS the gateway publishes the topic with: 1 for every one of them.
        public var qos: MQTTQoS { .atLeastOnce }

        /// Whether the broker keeps the topic's last message: the states and announcements are
        /// retained, reports, probes and answers are not.
        public var retain: Bool {
            switch self {
            case .status, .metrics, .instance, .instanceMetrics:
                true
            case .errors, .probe, .deadLetter, .response:
                false
            }
        }
    }

    /// The topic of one of the gateway's own topics, e.g. `gateway/status` or
    /// `gateway/instances/gw-1`.
    /// - Parameter topic: which topic.
    /// - Returns: the topic.
    public func topic(_ topic: GatewayTopic) -> String {
        switch topic {
        case .status: outboundRoot + "/status"
        case .errors: outboundRoot + "/" + Leaf.errors.rawValue
        case .metrics: outboundRoot + "/metrics"
        case .probe: outboundRoot + "/probe"
        case .deadLetter: outboundRoot + "/" + Leaf.deadLetter.rawValue
        case .instance(let name): instancesPrefix + name
        case .instanceMetrics(let name): instancesPrefix + name + "/metrics"
        case .response(let responseTopic): responseTopic
        }
    }

    /// The gateway's own retained status topic, e.g. `gateway/status`.
    public var statusTopic: String { topic(.status) }

    /// Where topic-level errors are reported, e.g. `gateway/errors`.
    public var errorsTopic: String { topic(.errors) }

    /// Where the gateway publishes its metrics, e.g. `gateway/metrics`.
    public var metricsTopic: String { topic(.metrics) }

    /// Where the broker round-trip probe goes, e.g. `gateway/probe`.
    public var probeTopic: String { topic(.probe) }
}
