extension GatewayConfiguration {
    /// The keys of the operations features: HTTP server, dead letters, log format.
    static let operationsKeys: [ConfigurationKey] = [
        .text(
            "logging.format", "Log line format: text, or json (one object per line: time, level, label, message, metadata).", default: "text",
            validate: { LogFormat(rawValue: $0.lowercased()) == nil ? "must be text or json, got '\($0)'" : nil }
        ) { configuration, text in
            configuration.logFormat = text.flatMap { LogFormat(rawValue: $0.lowercased()) } ?? .text
        },
        .text(
            "http.listen", "host:port of the HTTP server (/metrics, /healthz, /readyz, fleet page at /); off: no server; port 0: any free port.",
            default: "127.0.0.1:9464",
            validate: { text in
                text.lowercased() == "off" || HTTPListenAddress(parsing: text) != nil ? nil : "must be host:port (port 0-65535) or off, got '\(text)'"
            }
        ) { configuration, text in
            configuration.http.listen = text.flatMap { $0.lowercased() == "off" ? nil : HTTPListenAddress(parsing: $0) }
        },
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
}
