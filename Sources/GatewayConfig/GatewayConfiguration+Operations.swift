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
        /// The token file of each protected route group (`http.auth.*TokenFile`); a group
        /// without one is open.
        public var tokenFiles: [HTTPRouteGroup: String] = [:]
        /// The tokens read from ``tokenFiles`` when the configuration loads.
        public var accessTokens = HTTPAccessTokens()
        /// PEM certificate chain of both HTTP listeners (`http.tls.certFile`); with
        /// ``tlsKeyFile``, the listeners speak HTTPS only.
        public var tlsCertificateFile: String?
        /// PEM private key of ``tlsCertificateFile`` (`http.tls.keyFile`).
        public var tlsKeyFile: String?

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
        tokenFile(.metrics, "GET /metrics on both listeners"),
        tokenFile(.api, "GET /api/* and /openapi.yaml"),
        tokenFile(.page, "the fleet page (/, /fleet.js, /fleet.css)"),
        tokenFile(.health, "GET /healthz and /readyz (kubelet probes cannot send one: leave open there)"),
        .optionalText("http.tls.certFile", "PEM certificate chain of the HTTP listeners; with http.tls.keyFile they serve HTTPS only.", \.http.tlsCertificateFile)
            .checked { ($0.http.tlsCertificateFile == nil) != ($0.http.tlsKeyFile == nil) ? "http.tls.certFile and http.tls.keyFile go together; set both or neither" : nil }
            .checked { CredentialFiles.pemProblem(ofOptional: $0.http.tlsCertificateFile) },
        .optionalText("http.tls.keyFile", "PEM private key of http.tls.certFile.", \.http.tlsKeyFile)
            .checked { CredentialFiles.pemProblem(ofOptional: $0.http.tlsKeyFile) },
    ]

    /// `http.auth.{group}TokenFile`: the file of tokens that open `group`.
    private static func tokenFile(_ group: HTTPRouteGroup, _ routes: String) -> ConfigurationKey {
        .optionalText(
            group.tokenFileKey,
            "File of bearer tokens (one per line, 16+ characters) required for \(routes); a browser may send one as the Basic password. Unset: open.",
            none: "(open)", \.http.tokenFiles[group])
    }

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
