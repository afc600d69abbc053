/// A workout session state change (`workout` stream), as HealthKit's `HKWorkoutSession`.
/// Batched streams are only valid while a workout is ``WorkoutState/running``.
public struct WorkoutEvent: Sendable, Equatable, Hashable {
    /// The session's new state.
    public var state: WorkoutState
    /// The `HKWorkoutActivityType` case name, for example `"tennis"`, `"baseball"`,
    /// `"underwaterDiving"`.
    public var activityType: String
    /// When the state changed, Unix epoch seconds.
    public var date: Double

    /// Creates a workout event.
    /// - Parameters:
    ///   - state: the new session state.
    ///   - activityType: HealthKit activity type name.
    ///   - date: Unix epoch seconds.
    public init(state: WorkoutState, activityType: String, date: Double) {
        self.state = state
        self.activityType = activityType
        self.date = date
    }
}
