/// A setting that cannot be used: the configuration key it comes from and why.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    /// The key to change, e.g. `derivation.run.finalizeTimeout`.
    public var key: String
    /// What is wrong, e.g. `must be a non-negative number, got -1`.
    public var message: String

    /// Creates a problem.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    /// `key message`.
    public var description: String { "\(key) \(message)" }
}
