import TelemetryCore

extension GatewayConfiguration {
    /// The event history: derived events written to the store for fleet monitoring (keys under
    /// `history.*`, docs/history.md).
    public struct History: Sendable {
        /// On, off, or nil: on whenever a store is configured (`recorder.database` with the
        /// SQLite backend, `store.url` with PostgreSQL).
        public var enabled: Bool?
        /// Seconds of events kept, cut on the store's clock (30 days).
        public var retention = 2_592_000.0
        /// The families kept: leaves of the outbound topic table (docs/wire-contract.md).
        public var families = History.discreteFamilies
        /// Bytes of events waiting for the store at most; beyond them new events are dropped
        /// and counted (`gateway_history_dropped_total`).
        public var bufferBytes = 16 << 20

        /// The discrete events, kept by default: each is a change or a summary, a few per
        /// device per minute at most (docs/history.md gives the bytes per device per day).
        public static let discreteFamilies: Set<String> = Set(
            [
                TopicScheme.Leaf.connection, .availability, .errors, .headphoneConnection, .headphoneSensorLocation, .headphonePosture,
                .headphoneGesture, .submersionDepthState, .submersionDive, .submersionAscentWarning, .submersionSafetyStop, .swing, .tennisStroke,
                .pedometerSegment, .pedometerWorkout, .tremor,
            ].map(\.rawValue))

        /// Families that may be kept: every leaf the gateway publishes JSON on (commands it only
        /// listens to and dead letters, the original bytes, cannot be).
        public static let keepableFamilies: Set<String> = Set(
            TopicScheme.Leaf.allCases.filter { ![.headphoneResetPose, .recorderQuery, .deadLetter].contains($0) }.map(\.rawValue))

        /// Creates the defaults.
        public init() {}
    }

    /// Whether the event history is written: `history.enabled`, or without it whether a store
    /// is configured.
    public var historyIsEnabled: Bool {
        history.enabled ?? (store.backend == .postgres ? store.url != nil : recorder.database != nil)
    }
}

extension GatewayConfiguration.History {
    /// The `history.*` keys.
    package static let keys: [ConfigurationKey] = [
        .parsed(
            "history.enabled",
            "Write derived events to the store's event history: true, false, or auto (on when a store is configured: recorder.database with store.backend sqlite, store.url with postgres).",
            \.history.enabled, describe: { $0.map { "\($0)" } ?? "auto" },
            parse: { text in
                switch text.lowercased() {
                case "auto": .value(nil)
                case "true", "yes", "on", "1": .value(true)
                case "false", "no", "off", "0": .value(false)
                default: .invalid("must be true, false or auto, got '\(text)'")
                }
            }
        )
        .checked { configuration in
            configuration.history.enabled == true && configuration.store.backend == .sqlite && configuration.recorder.database == nil
                ? "history.enabled is true but there is no store: the SQLite event history lives in recorder.database's file (set it, or use store.backend: postgres)"
                : nil
        },
        .number(
            "history.retention", "Seconds of events kept in the event history (cut on the store's clock; 30 days).", in: 3600...315_360_000,
            \.history.retention),
        .names(
            "history.families",
            "Families (outbound topic leaves) written to the event history, comma-separated; the default is the discrete events (head pose and water temperature are off: docs/history.md).",
            \.history.families
        )
        .checked { configuration in
            let unknown = configuration.history.families.subtracting(GatewayConfiguration.History.keepableFamilies).sorted()
            return unknown.isEmpty
                ? nil
                : "unknown families \(unknown.joined(separator: ", ")); allowed: \(GatewayConfiguration.History.keepableFamilies.sorted().joined(separator: ", "))"
        },
        .integer(
            "history.bufferBytes", "Bytes of events waiting for the store at most; beyond them new events are dropped (gateway_history_dropped_total).",
            in: 65_536...4_294_967_296, \.history.bufferBytes),
    ]
}
