/// A workout session state change (`workout` stream), as HealthKit's `HKWorkoutSession`.
/// Batched streams are only valid while a workout is ``WorkoutState/running``.
public struct WorkoutEvent: Sendable, Equatable, Hashable, Codable {
    /// The session's new state.
    public var state: WorkoutState
    /// The `HKWorkoutActivityType` case name, for example `"tennis"`, `"baseball"`,
    /// `"underwaterDiving"`. Required on `running` (the frame that opens a session, whose
    /// configuration carries the type); optional on `paused` and `ended`, because an
    /// `HKWorkoutSession` state change carries only a state and a date: nil means the
    /// session's own type.
    public var activityType: String?
    /// When the state changed, Unix epoch seconds.
    public var date: Double

    /// Creates a workout event.
    /// - Parameters:
    ///   - state: the new session state.
    ///   - activityType: HealthKit activity type name (nil: the session's, for `paused`/`ended`).
    ///   - date: Unix epoch seconds.
    public init(state: WorkoutState, activityType: String?, date: Double) {
        self.state = state
        self.activityType = activityType
        self.date = date
    }
}
