extension GatewayConfiguration {
    /// Keys of the journal, the byte bound of the queues and retained-state re-announcing.
    static let reliabilityKeys: [ConfigurationKey] = [
        .integer(
            "pipeline.maxBufferedBytes", "Bytes all worker queues may hold together before the subscriber applies backpressure (memory bound).",
            default: 134_217_728, in: 1_048_576...68_719_476_736
        ) { $0.pipeline.maximumBufferedBytes = $1 },
        .text(
            "journal.path", "Ring file of the inbound journal (directory created if missing); frames stay there until their outputs are acknowledged. null: off.",
            default: "data/journal.bin"
        ) { $0.journal.path = $1 },
        .integer(
            "journal.sizeBytes", "Size of the journal ring in bytes (multiple of 8); an existing file must have been made with the same size.",
            default: 268_435_456, in: 1_048_576...68_719_476_736
        ) { $0.journal.sizeBytes = $1 },
        .number("journal.flushInterval", "Seconds between writes of the journal to disk: what a power loss may cost (a crash costs nothing).", default: 1, in: 0.01...3600) {
            $0.journal.flushInterval = $1
        },
        .number(
            "journal.maxWait", "Longest the subscriber waits (s) for room in a full journal before handing frames on unjournaled (counted); 0: never wait.",
            default: 5, in: 0...300
        ) { $0.journal.maximumWait = $1 },
        .integer("retained.cacheBytes", "Bytes of retained device state remembered for re-announcing after a broker restart.", default: 67_108_864, in: 0...68_719_476_736) {
            $0.retained.cacheBytes = $1
        },
        .number("retained.reannounceRate", "Retained messages per second re-published when the publisher connects without a session.", default: 2000, in: 1...1_000_000) {
            $0.retained.reannounceRate = $1
        },
    ]

    /// Checks of these keys against others; each names the key to change.
    func reliabilityIssues() -> [ConfigurationIssue] {
        var issues: [ConfigurationIssue] = []
        if journal.sizeBytes % 8 != 0 {
            issues.append(.init(key: "journal.sizeBytes", source: "configuration", message: "must be a multiple of 8, got \(journal.sizeBytes)"))
        }
        if journal.path != nil, pipeline.maximumPayloadBytes > journal.sizeBytes / 2 {
            issues.append(
                .init(
                    key: "journal.sizeBytes", source: "configuration",
                    message: "must be at least twice pipeline.maxPayloadBytes (\(pipeline.maximumPayloadBytes)), got \(journal.sizeBytes)"))
        }
        if (journal.maximumWait + pipeline.maximumHandoffWait) * 2 >= Double(mqtt.keepalive) {
            issues.append(
                .init(
                    key: "journal.maxWait", source: "configuration",
                    message:
                        "journal.maxWait + pipeline.maxHandoffWait must be under half of mqtt.keepalive (\(mqtt.keepalive) s), got \(journal.maximumWait + pipeline.maximumHandoffWait): the subscriber may block that long"
                ))
        }
        return issues
    }
}
