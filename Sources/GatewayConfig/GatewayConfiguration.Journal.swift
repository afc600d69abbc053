extension GatewayConfiguration {
    /// The inbound journal: every received frame is kept there until its outputs are
    /// acknowledged, so a crash loses nothing the broker handed over (docs/reliability.md).
    public struct Journal: Sendable {
        /// The ring file; nil turns the journal off (frames in flight die with the process).
        public var path: String? = "data/journal.bin"
        /// Size of the ring in bytes (fixed for a file: change it only with an empty journal).
        public var sizeBytes = 268_435_456
        /// Seconds between writes of the journal's unreleased records to disk (the power-loss
        /// window).
        public var flushInterval = 1.0
        /// Longest the subscriber waits for room in a full journal before handing frames on
        /// unjournaled (counted); 0 never waits.
        public var maximumWait = 5.0

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Journal {
    /// The `journal.*` keys.
    package static let keys: [ConfigurationKey] = [
        .optionalText(
            "journal.path", "Ring file of the inbound journal (directory created if missing); frames stay there until their outputs are acknowledged. null: off.",
            \.journal.path),
        .integer(
            "journal.sizeBytes", "Size of the journal ring in bytes (multiple of 8); an existing file must have been made with the same size.",
            in: 1_048_576...68_719_476_736, \.journal.sizeBytes
        )
        .checked { $0.journal.sizeBytes % 8 == 0 ? nil : "must be a multiple of 8, got \($0.journal.sizeBytes)" }
        .checked { configuration in
            let payload = configuration.pipeline.maximumPayloadBytes
            let size = configuration.journal.sizeBytes
            return configuration.journal.path == nil || payload <= size / 2 ? nil : "must be at least twice pipeline.maxPayloadBytes (\(payload)), got \(size)"
        },
        .number(
            "journal.flushInterval", "Seconds between writes of the journal's unreleased records to disk: what a power loss may cost (a crash costs nothing).", in: 0.01...3600,
            \.journal.flushInterval),
        .number(
            "journal.maxWait", "Longest the subscriber waits (s) for room in a full journal before handing frames on unjournaled (counted); 0: never wait.",
            in: 0...300, \.journal.maximumWait
        )
        .checked { configuration in
            let blocking = configuration.journal.maximumWait + configuration.pipeline.maximumHandoffWait
            let keepalive = configuration.mqtt.keepalive
            return blocking * 2 < Double(keepalive)
                ? nil
                : "journal.maxWait + pipeline.maxHandoffWait must be under half of mqtt.keepalive (\(keepalive) s), got \(blocking): the subscriber may block that long"
        },
    ]
}
