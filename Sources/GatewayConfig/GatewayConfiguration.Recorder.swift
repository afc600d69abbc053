extension GatewayConfiguration {
    /// The historical accelerometer store (`recorder/accelerometer`), its queries and the
    /// tremor results (docs/recorder.md).
    public struct Recorder: Sendable {
        /// The SQLite file; nil stores nothing (queries are answered with `storeUnavailable`).
        public var database: String? = "data/recorder.sqlite"
        /// Seconds of recorded data kept (36 h, the window watchOS 3 gives apps).
        public var retention = 129_600.0
        /// The most samples stored over all devices (bounds the disk use, ~95 bytes per sample).
        public var maximumSamples = 20_000_000
        /// Seconds between pruning passes.
        public var pruneInterval = 60.0
        /// Samples per response chunk of a query.
        public var queryChunkSamples = 1000
        /// The longest range a query may cover, seconds; nil: the whole retention window
        /// (watchOS 3's 36 h query duration, and everything the store keeps).
        public var maximumQueryRange: Double?
        /// The query range limit in force: ``maximumQueryRange`` or, without one, ``retention``.
        public var effectiveQueryRange: Double { maximumQueryRange ?? retention }
        /// Queries queued or running at once over all requesters; more are refused with `busy`.
        public var queryQueueCapacity = 64
        /// Queries one requester may have queued or running at once; more are refused with
        /// `tooManyQueries`.
        public var maximumQueriesPerRequester = 4
        /// The largest query payload accepted, bytes; larger ones are refused with `payloadTooLarge`.
        public var maximumQueryPayloadBytes = 4096
        /// Answer messages on the publisher connection not yet acknowledged, at most: the rest of
        /// `mqtt.maxInflightPublishes` stays for device events.
        public var maximumAnswerPublishesInFlight = 32
        /// Seconds past a minute's end the recorded data must reach before its tremor result is published.
        public var tremorGrace = 5.0
        /// Seconds without recorder chunks after which a device's last complete minute is published.
        public var tremorIdleTimeout = 30.0

        /// Creates the defaults.
        public init() {}
    }
}

extension GatewayConfiguration.Recorder {
    /// The `recorder.*` keys.
    package static let keys: [ConfigurationKey] = [
        .optionalText(
            "recorder.database", "SQLite file of the historical accelerometer store (directory created if missing); null: store nothing.",
            \.recorder.database),
        .number(
            "recorder.retention", "Seconds of recorded accelerometer data kept (36 h: the window watchOS gives apps).", in: 60...31_536_000,
            \.recorder.retention),
        .integer(
            "recorder.maxSamples", "Most samples stored over all devices (~95 bytes each on disk); the fullest devices lose their oldest first.",
            in: 1000...2_000_000_000, \.recorder.maximumSamples),
        .number("recorder.pruneInterval", "Seconds between pruning passes of the store.", in: 1...86400, \.recorder.pruneInterval),
        .integer("recorder.queryChunkSamples", "Samples per response message of a recorder query.", in: 1...100_000, \.recorder.queryChunkSamples),
        .parsed(
            "recorder.maxQueryRange", "Longest range (s) one recorder query may cover; null: the whole retention window (watchOS 3 queries cover 36 h).",
            \.recorder.maximumQueryRange, describe: { $0.map { "\($0)" } ?? "(none)" },
            parse: { text in
                guard let seconds = Double(text), seconds.isFinite, seconds >= 1 else { return .invalid("must be a number of seconds of at least 1, got '\(text)'") }
                return .value(seconds)
            }),
        .integer(
            "recorder.queryQueueCapacity", "Recorder queries queued or running at once; more get the error answer busy at once.", in: 1...100_000,
            \.recorder.queryQueueCapacity),
        .integer(
            "recorder.maxQueriesPerRequester", "Recorder queries one requester may have queued or running; more get the error answer tooManyQueries at once.",
            in: 1...100_000, \.recorder.maximumQueriesPerRequester),
        .integer(
            "recorder.maxQueryPayloadBytes", "Largest recorder query payload (bytes); larger ones get the error answer payloadTooLarge.", in: 64...1_048_576,
            \.recorder.maximumQueryPayloadBytes),
        .integer(
            "recorder.maxAnswerPublishesInFlight",
            "Recorder answer messages unacknowledged at once; at most half of mqtt.maxInflightPublishes is used (the rest is kept for device events).",
            in: 1...65535, \.recorder.maximumAnswerPublishesInFlight),
        .number(
            "recorder.tremor.grace", "Seconds past a minute's end the recorded data must reach before that minute's tremor result is published.",
            in: 0...3600, \.recorder.tremorGrace),
        .number(
            "recorder.tremor.idleTimeout", "Seconds without recorder chunks after which a device's last complete minute gets its tremor result.",
            in: 1...86400, \.recorder.tremorIdleTimeout),
    ]
}
