import TelemetryCore

extension DerivationConfiguration {
    /// `session.endGrace` and the `derivation.*` keys of every deriver. Each is checked by the
    /// derivers' own check (``DerivationConfiguration/configurationIssue``, the code that also
    /// guards programmatic use), whose problem is reported under the key it names.
    /// A problem naming a key that is not in the table is not dropped: the first key reports it
    /// with the name the check gave.
    package static let keys: [ConfigurationKey] = ownKeys.enumerated().map { index, key in
        key.checked { configuration in
            guard let issue = configuration.derivation.configurationIssue else { return nil }
            if issue.key == key.path { return issue.message }
            return index == 0 && !ownPaths.contains(issue.key) ? "\(issue.key): \(issue.message)" : nil
        }
    }

    private static let ownPaths = Set(ownKeys.map(\.path))

    private static let ownKeys: [ConfigurationKey] =
        [sessionEndGraceKey] + SubmersionConfiguration.keys + SwingConfiguration.keys + TremorConfiguration.keys + RunConfiguration.keys
        + HeadphoneConfiguration.keys

    private static let sessionEndGraceKey = ConfigurationKey.number(
        "session.endGrace",
        "Seconds after a workout pauses or ends during which its batched frames are still accepted and derived (the last batch arrives after the end); pending swings are decided after it.",
        in: 0...60, \.derivation.sessionEndGrace)
}
