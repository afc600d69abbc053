extension GatewayConfiguration {
    /// Metrics.
    public struct Metrics: Sendable {
        /// Seconds between retained `gateway/metrics` publications; 0 disables them.
        public var publishInterval = 5.0

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Metrics {
    /// The `metrics.*` keys.
    package static let keys: [ConfigurationKey] = [
        .number("metrics.publishInterval", "Seconds between retained gateway/metrics publications (0: off).", in: 0...86400, \.metrics.publishInterval)
    ]
}
