import TelemetryCore

extension DerivationConfiguration {
    /// `session.endGrace` and the `derivation.*` keys of every deriver. Each is checked by the
    /// derivers' own check (``DerivationConfiguration/configurationIssue``, the code that also
    /// guards programmatic use), whose problem is reported under the key it names.
    static let keys: [ConfigurationKey] = ownKeys.map { key in
        key.checked { configuration in
            configuration.derivation.configurationIssue.flatMap { $0.key == key.path ? $0.message : nil }
        }
    }

    private static let ownKeys: [ConfigurationKey] =
        [sessionEndGraceKey] + SubmersionConfiguration.keys + SwingConfiguration.keys + TremorConfiguration.keys + RunConfiguration.keys
        + HeadphoneConfiguration.keys

    private static let sessionEndGraceKey = ConfigurationKey.number(
        "session.endGrace",
        "Seconds after a workout pauses or ends during which its batched frames are still accepted and derived (the last batch arrives after the end); pending swings are decided after it.",
        in: 0...60, \.derivation.sessionEndGrace)
}
