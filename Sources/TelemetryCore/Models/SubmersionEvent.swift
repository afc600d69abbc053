/// A water submersion state change (`submersion/event`), as Core Motion's
/// `CMWaterSubmersionEvent`; Core Motion sends the current state as soon as updates start.
public struct SubmersionEvent: Sendable, Equatable, Hashable {
    /// When the state changed, Unix epoch seconds.
    public var date: Double
    /// The new state.
    public var state: WaterSubmersionState

    /// Creates a submersion event.
    /// - Parameters:
    ///   - date: Unix epoch seconds.
    ///   - state: the new state.
    public init(date: Double, state: WaterSubmersionState) {
        self.date = date
        self.state = state
    }
}
