/// What one pruning pass deleted.
public struct RecorderPruneOutcome: Sendable, Equatable {
    /// Samples older than the retention window.
    public var expired = 0
    /// Samples deleted because the store held more than its sample cap.
    public var overCapacity = 0

    /// Creates an empty outcome.
    public init() {}
}
