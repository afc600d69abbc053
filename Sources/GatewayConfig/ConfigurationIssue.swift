/// One problem with one configuration key.
public struct ConfigurationIssue: Sendable, Equatable, CustomStringConvertible {
    /// The key as written in YAML (`mqtt.keepalive`), or the environment variable / flag.
    public var key: String
    /// Where the value came from: `config/gateway.yml:12`, `environment WG_MQTT_KEEPALIVE`, `--set`.
    public var source: String
    /// What is wrong and what is allowed.
    public var message: String

    /// Creates an issue.
    public init(key: String, source: String, message: String) {
        self.key = key
        self.source = source
        self.message = message
    }

    public var description: String { "\(source): \(key): \(message)" }
}

/// The configuration cannot be used; lists every problem found, not just the first.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The problems, in the order found.
    public var issues: [ConfigurationIssue]

    /// Creates the error.
    public init(issues: [ConfigurationIssue]) {
        self.issues = issues
    }

    public var description: String {
        "invalid configuration (\(issues.count) problem\(issues.count == 1 ? "" : "s")):\n"
            + issues.map { "  - \($0)" }.joined(separator: "\n")
    }
}
