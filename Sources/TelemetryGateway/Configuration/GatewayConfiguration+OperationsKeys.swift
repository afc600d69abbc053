extension GatewayConfiguration {
    /// The keys of the operations features: HTTP server, dead letters, log format.
    static let operationsKeys: [ConfigurationKey] = [
        .text(
            "logging.format", "Log line format: text, or json (one object per line: time, level, label, message, metadata).", default: "text",
            validate: { LogFormat(rawValue: $0.lowercased()) == nil ? "must be text or json, got '\($0)'" : nil }
        ) { configuration, text in
            configuration.logFormat = text.flatMap { LogFormat(rawValue: $0.lowercased()) } ?? .text
        },
        .listenAddress(
            "http.listen", "host:port of the HTTP server (/metrics, /healthz, /readyz, fleet page at /); off: no server; port 0: any free port.",
            default: "127.0.0.1:9464"
        ) { $0.http.listen = $1 },
        .listenAddress(
            "http.metricsListen", "host:port of a second HTTP listener serving /metrics only (for Prometheus, without the fleet data); off: none.",
            default: "off"
        ) { $0.http.metricsListen = $1 },
        .integer(
            "http.fleetViewBytes", "Most bytes the fleet page keeps (payloads plus overhead; /api/fleet is never larger); the oldest plot points go first, drops counted in gateway_fleet_view_dropped_total.",
            default: 32 << 20, in: 65_536...(1 << 34)
        ) { $0.http.fleetViewBytes = $1 },
        .integer(
            "http.maxLiveClients", "Most live-update clients (/api/events); a new one beyond it ends the oldest (gateway_fleet_live_clients_dropped_total).",
            default: 32, in: 1...10_000
        ) { $0.http.maxLiveClients = $1 },
        .number("http.stallTimeout", "Seconds a worker or loop may miss its heartbeat before /healthz answers 503.", default: 30, in: 1...3600) {
            $0.http.stallTimeout = $1
        },
        .flag("deadLetter.enabled", "Republish every rejected frame, byte for byte, on gateway/{id}/dead-letter (gateway/dead-letter without a valid id).", default: false) {
            $0.deadLetters.enabled = $1
        },
        .integer("deadLetter.maxPerSecond", "Most dead letters per device and second; more are dropped and counted (gateway_dead_letters_dropped_total).", default: 10, in: 1...100_000) {
            $0.deadLetters.maximumPerSecond = $1
        },
    ]

    /// Problems between the operations keys: the two HTTP listeners cannot bind the same port
    /// on the same (or a wildcard) host.
    func operationsIssues() -> [ConfigurationIssue] {
        let wildcards: Set = ["0.0.0.0", "::"]
        guard let metrics = http.metricsListen, let main = http.listen, metrics.port != 0, metrics.port == main.port,
            metrics.host == main.host || wildcards.contains(metrics.host) || wildcards.contains(main.host)
        else { return [] }
        return [.init(key: "http.metricsListen", source: "configuration", message: "must differ from http.listen (\(main)), got \(metrics)")]
    }
}

extension ConfigurationKey {
    /// `host:port` of an HTTP listener, or `off` (nil).
    fileprivate static func listenAddress(
        _ path: String, _ summary: String, default value: String,
        _ set: @escaping @Sendable (inout GatewayConfiguration, HTTPListenAddress?) -> Void
    ) -> ConfigurationKey {
        .text(
            path, summary, default: value,
            validate: { text in
                text.lowercased() == "off" || HTTPListenAddress(parsing: text) != nil ? nil : "must be host:port (port 0-65535) or off, got '\(text)'"
            }
        ) { configuration, text in
            set(&configuration, text.flatMap { $0.lowercased() == "off" ? nil : HTTPListenAddress(parsing: $0) })
        }
    }
}
