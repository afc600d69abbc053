/// The one configuration-check shape: every deriver's settings say what is wrong with them,
/// naming the key, and the gateway's loader runs ``DerivationConfiguration``'s check (which runs
/// each deriver's) next to its per-key bounds, so programmatic use and operator input are
/// checked by the same code.
public protocol ConfigurationChecking {
    /// The first problem found, or nil when the settings are usable.
    var configurationIssue: ConfigurationProblem? { get }
}

extension ConfigurationChecking {
    /// The first problem as text (`key message`), or nil when the settings are usable.
    public var configurationProblem: String? { configurationIssue?.description }

    /// The first setting of `values` that is not a finite number accepted by `isValid`.
    /// - Parameters:
    ///   - prefix: the keys' common prefix, e.g. `derivation.run.`.
    ///   - values: (key suffix, value) pairs.
    ///   - requirement: how the message names the rule, e.g. `a positive number`.
    ///   - isValid: the rule.
    /// - Returns: the problem, or nil.
    static func firstInvalid(
        _ prefix: String, _ values: [(String, Double)], must requirement: String, _ isValid: (Double) -> Bool
    ) -> ConfigurationProblem? {
        for (name, value) in values where !(value.isFinite && isValid(value)) {
            return ConfigurationProblem(key: prefix + name, message: "must be \(requirement), got \(value)")
        }
        return nil
    }
}
