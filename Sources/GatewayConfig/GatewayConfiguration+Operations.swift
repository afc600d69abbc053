import TelemetryCore

extension GatewayConfiguration {
    /// The HTTP server: metrics, health, readiness and the fleet page (keys under `http.*`).
    public struct HTTP: Sendable {
        /// Where it listens; nil (`off`) runs no HTTP server.
        public var listen: HTTPListenAddress? = HTTPListenAddress(host: "127.0.0.1", port: 9464)
        /// Seconds a worker or loop may go without a heartbeat before `/healthz` reports it stalled.
        public var stallTimeout = 30.0
        /// A second listener serving `GET /metrics` only (nil: none), so Prometheus can scrape
        /// where the fleet data is not exposed; `listen` keeps serving everything.
        public var metricsListen: HTTPListenAddress?
        /// The most bytes the fleet page's view keeps (payloads plus per-entry overhead);
        /// `/api/fleet` answers are never larger.
        public var fleetViewBytes = 32 << 20
        /// The most live-update (server-sent events) clients; a new one beyond it ends the oldest.
        public var maxLiveClients = 32

        /// Creates the defaults.
        public init() {}
    }

    /// Republishing of rejected frames (keys under `deadLetter.*`).
    public struct DeadLetters: Sendable {
        /// Whether rejected frames are republished on `gateway/{id}/dead-letter`.
        public var enabled = false
        /// The most dead letters per device and second; more are dropped and counted.
        public var maximumPerSecond = 10

        /// Creates the defaults.
        public init() {}

        /// The frame processor's policy: nil when disabled.
        public var policy: DeadLetterPolicy? { enabled ? DeadLetterPolicy(maxPerSecond: maximumPerSecond) : nil }
    }

    /// How log lines are written (`logging.format`).
    public enum LogFormat: String, Sendable, CaseIterable {
        /// swift-log's plain text lines.
        case text
        /// One JSON object per line: time, level, label, message, metadata.
        case json
    }
}

extension GatewayConfiguration.HTTP {
    /// The `http.*` keys.
    package static let keys: [ConfigurationKey] = [
        listenAddress(
            "http.listen", "host:port of the HTTP server (/metrics, /healthz, /readyz, fleet page at /); off: no server; port 0: any free port.",
            \.http.listen),
        listenAddress(
            "http.metricsListen", "host:port of a second HTTP listener serving /metrics only (for Prometheus, without the fleet data); off: none.",
            \.http.metricsListen
        )
        .checked { configuration in
            // The two listeners cannot bind the same port on the same (or a wildcard) host.
            let wildcards: Set = ["0.0.0.0", "::"]
            guard let metrics = configuration.http.metricsListen, let main = configuration.http.listen, metrics.port != 0, metrics.port == main.port,
                metrics.host == main.host || wildcards.contains(metrics.host) || wildcards.contains(main.host)
            else { return nil }
            return "must differ from http.listen (\(main)), got \(metrics)"
        },
        .integer(
            "http.fleetViewBytes",
            "Most bytes the fleet page keeps (payloads plus overhead; /api/fleet is never larger); the oldest plot points go first, drops counted in gateway_fleet_view_dropped_total.",
            in: 65_536...(1 << 34), \.http.fleetViewBytes),
        .integer(
            "http.maxLiveClients", "Most live-update clients (/api/events); a new one beyond it ends the oldest (gateway_fleet_live_clients_dropped_total).",
            in: 1...10_000, \.http.maxLiveClients),
        .number("http.stallTimeout", "Seconds a worker or loop may miss its heartbeat before /healthz answers 503.", in: 1...3600, \.http.stallTimeout),
    ]

    /// `host:port` of an HTTP listener, or `off` (nil; also `null`).
    private static func listenAddress(
        _ path: String, _ summary: String, _ property: ConfigurationKey.Property<HTTPListenAddress?>
    ) -> ConfigurationKey {
        ConfigurationKey(path, summary, property, describe: { $0?.description ?? "off" }) { text in
            if ConfigurationKey.isNull(text) || text.lowercased() == "off" { return .value(nil) }
            return HTTPListenAddress(parsing: text).map { .value($0) } ?? .invalid("must be host:port (port 0-65535) or off, got '\(text)'")
        }
    }
}

extension GatewayConfiguration.DeadLetters {
    /// The `deadLetter.*` keys.
    package static let keys: [ConfigurationKey] = [
        .flag(
            "deadLetter.enabled", "Republish every rejected frame, byte for byte, on gateway/{id}/dead-letter (gateway/dead-letter without a valid id).",
            \.deadLetters.enabled),
        .integer(
            "deadLetter.maxPerSecond", "Most dead letters per device and second; more are dropped and counted (gateway_dead_letters_dropped_total).",
            in: 1...100_000, \.deadLetters.maximumPerSecond),
    ]
}
