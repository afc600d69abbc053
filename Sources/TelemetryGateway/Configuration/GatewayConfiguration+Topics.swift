import TelemetryCore

extension GatewayConfiguration.Topics {
    /// The topic layout of these roots: every topic the gateway and its tools use comes from it.
    public var scheme: TopicScheme { TopicScheme(inboundRoot: inboundRoot, outboundRoot: outboundRoot) }
}
