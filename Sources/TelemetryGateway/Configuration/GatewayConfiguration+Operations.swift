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
