import Logging
import TelemetryCore

extension GatewayConfiguration {
    /// Every configuration key, in documentation order: each configuration type declares its
    /// own next to itself, this is their concatenation.
    public static let keys: [ConfigurationKey] =
        accessPolicyKeys + MQTT.keys + Topics.keys + Pipeline.keys + Metrics.keys + Recorder.keys + Store.keys + History.keys + DerivationConfiguration.keys
        + loggingKeys + Journal.keys + Retained.keys + DeviceState.keys + HTTP.keys + DeadLetters.keys + Cluster.keys + Tracing.keys

    /// Keys that were removed, each with the reason a configuration still setting it is refused.
    package static let removedKeys: [String: String] = Cluster.removedKeys

    /// The files of the access policy: `registry.file`, `capabilities.file`.
    package static let accessPolicyKeys: [ConfigurationKey] = [
        .optionalText(
            "registry.file", "Device registry YAML (devices and their entitlements); reloaded on SIGHUP. null: accept every device (development).",
            \.registryFile
        )
        .checked { configuration in configuration.registryFile.flatMap(unreadableFileProblem) },
        .text(
            "capabilities.file", "Capability table YAML: which models and OS versions support which Core Motion features; reloaded on SIGHUP.",
            \.capabilitiesFile
        )
        .checked { unreadableFileProblem($0.capabilitiesFile) },
    ]

    /// `logging.level`, `logging.format`.
    package static let loggingKeys: [ConfigurationKey] = [
        .choice("logging.level", "Log level: trace, debug, info, notice, warning, error, critical.", \.logLevel),
        .choice("logging.format", "Log line format: text, or json (one object per line: time, level, label, message, metadata).", \.logFormat),
    ]

    /// What every key's checks find wrong with this configuration, in key order; each issue
    /// names the key it is about.
    package func keyIssues() -> [ConfigurationIssue] {
        Self.keys.flatMap { $0.issues(in: self) }
    }

    private static func unreadableFileProblem(_ path: String) -> String? {
        FileSystem.isReadableFile(path) ? nil : "file '\(path)' does not exist or is not readable"
    }
}
