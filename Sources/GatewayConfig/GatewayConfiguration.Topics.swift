import TelemetryCore

extension GatewayConfiguration {
    /// Topic roots.
    public struct Topics: Sendable {
        /// Root devices publish under: `<inboundRoot>/{id}/<stream>`.
        public var inboundRoot = TopicScheme.defaultInboundRoot
        /// Root the gateway publishes under: `<outboundRoot>/...`.
        public var outboundRoot = TopicScheme.defaultOutboundRoot

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Topics {
    /// The `topics.*` keys. Each root is checked again once every source is applied (a
    /// programmatic base may hold a bad one); the overlap of the two is the outbound root's.
    package static let keys: [ConfigurationKey] = [
        .text("topics.inboundRoot", "Root devices publish under: <root>/{id}/<stream>.", validate: TopicScheme.validateRoot, \.topics.inboundRoot)
            .checked { TopicScheme.validateRoot($0.topics.inboundRoot) },
        .text("topics.outboundRoot", "Root the gateway publishes under.", validate: TopicScheme.validateRoot, \.topics.outboundRoot)
            .checked { TopicScheme.validateRoot($0.topics.outboundRoot) }
            .checked { configuration in
                let scheme = configuration.topics.scheme
                // A bad root is reported under its own key; what is left here is the overlap.
                guard TopicScheme.validateRoot(scheme.inboundRoot) == nil, TopicScheme.validateRoot(scheme.outboundRoot) == nil else { return nil }
                return scheme.configurationProblem
            },
    ]

    /// The topic layout of these roots: every topic the gateway and its tools use comes from it.
    public var scheme: TopicScheme { TopicScheme(inboundRoot: inboundRoot, outboundRoot: outboundRoot) }
}
