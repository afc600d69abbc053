/// Settings of every deriver; each milestone adds its own nested settings with documented
/// defaults (configuration keys under `derivation.*`).
public struct DerivationConfiguration: Sendable, Equatable {
    /// Creates the defaults.
    public init() {}
}
