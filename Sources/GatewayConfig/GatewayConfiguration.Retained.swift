extension GatewayConfiguration {
    /// Retained device state kept for re-announcing after the broker lost it.
    public struct Retained: Sendable {
        /// Bytes of retained messages remembered (oldest dropped first, counted).
        public var cacheBytes = 67_108_864
        /// Retained messages re-published per second after a broker restart.
        public var reannounceRate = 2000.0

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Retained {
    /// The `retained.*` keys.
    package static let keys: [ConfigurationKey] = [
        .integer(
            "retained.cacheBytes", "Bytes of retained device state remembered for re-announcing after a broker restart.", in: 0...68_719_476_736,
            \.retained.cacheBytes),
        .number(
            "retained.reannounceRate", "Retained messages per second re-published when the publisher connects without a session.", in: 1...1_000_000,
            \.retained.reannounceRate),
    ]
}
