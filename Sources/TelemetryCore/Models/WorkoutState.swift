/// The state of the workout session that batched streams require, as HealthKit's
/// `HKWorkoutSessionState` (NSInteger; only the three states of the wire contract).
public enum WorkoutState: Int, WireEnumeration, Codable {
    /// The session is running: batched sensor data flows.
    case running = 2
    /// The session has ended.
    case ended = 3
    /// The session is paused.
    case paused = 4

    /// The HealthKit case name: `"running"`, `"paused"` or `"ended"`.
    public var name: String {
        switch self {
        case .running: "running"
        case .ended: "ended"
        case .paused: "paused"
        }
    }
}
